// An invitation link (/join/ROOM#INVITE): take the first open seat, then go to it.
"use strict";
document.getElementById("join-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const room = location.pathname.split("/")[2];
  try {
    const r = await api("POST", `/api/rooms/${room}/join`, { invite: decodeURIComponent(location.hash.slice(1)), name: ev.target.name.value });
    location.href = r.url;
  } catch (e) {
    showError(e);
  }
};
