// Shared by every page: English and Arabic names (cards, contracts, calls, projects), the
// language switch, drawing a card, and JSON requests. Plain JS, no build step, no CDN.
"use strict";

const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const RED = { H: true, D: true };

const I18N = {
  en: {
    dir: "ltr",
    suits: { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" },
    ranks: { "7": "7", "8": "8", "9": "9", T: "10", J: "J", Q: "Q", K: "K", A: "A" },
    rankNames: { "7": "seven", "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" },
    contract: { hokum: "Hokum", sun: "Sun" },
    calls: { pass: "Pass", sun: "Sun", hokum: "Hokum", double: "Double", three: "Three", four: "Four", gahwa: "Gahwa" },
    levels: ["", "", "Double \u00d72", "Three \u00d73", "Four \u00d74", "Gahwa"],
    projects: { sira: "Sira", fifty: "Fifty", hundred: "Hundred", four_hundred: "Four hundred" },
    status: { bot: "bot", human: "", autopilot: "autopilot", hold: "connection lost", away: "bot (away)", left: "left: bot" },
    seats: ["You", "Right", "Partner", "Left"],
    ui: {
      us: "Us", them: "Them", turn: "Your turn", waitingFor: "Waiting for", toAct: "to play", toCall: "to call", thinking: "thinking\u2026",
      takeOver: "Take over", leave: "Leave the table", autopilot: "The table is playing for you after three timeouts.",
      reconnecting: "Connection lost: reconnecting\u2026", handOver: "Hand over", matchOver: "Match over",
      won: "won", lost: "lost", thrown: "Thrown in: everybody passed", kaboot: "Kaboot", baloot: "Baloot",
      contractBy: "by", level: "Level", trick: "Trick", lastTrick: "Last trick", calls2: "Calls", turned: "Turned card",
      waitingSeats: "Waiting for the invited players\u2026", invite: "Invitation link", score: "Score", target: "to 152",
      hands: "hands", next: "Next hand", dealer: "dealer", raw: "card points", tricks: "tricks", gained: "scored",
      team: "Team", round: "round", takes: "takes the trick",
      brand: "Baloot",
      scoreSheet: "Score sheet",
      replays: "Replays",
      lobbyTitle: "Baloot: play the bots",
      play: "Play",
      playIntro: "You play one seat; your partner sits opposite. Each other seat is a bot, or a friend you invite with a private link.",
      yourName: "Your name",
      yourSeat: "Your seat",
      seatTeam: "Seat {0} (team {1})",
      rightSeat: "Right (the next seat)",
      partner: "Partner",
      leftSeat: "Left (the previous seat)",
      tempo: "Clock",
      tempoRelaxed: "relaxed: 60 s a card, 75 s a call",
      tempoNormal: "normal: 30 s a card, 40 s a call",
      tempoFast: "fast: 15 s a card, 25 s a call",
      botSpeed: "Bot speed (seconds a move)",
      ruleVariants: "Rule variants",
      start: "Start the game",
      watchTitle: "Watch four bots",
      watchSpeed: "Speed (seconds a move)",
      watch: "Watch",
      inviteFriend: "invite a friend",
      sendLink: "Send each player you invite the private link of their seat:",
      invitedTo: "{0} invites you to sit {1}.",
      invitedSeat1: "on their right",
      invitedSeat2: "as their partner, opposite them",
      invitedSeat3: "on their left",
      invitedRules: "Rules:",
      invitedClock: "Clock: {0} s a card, {1} s a call.",
      goSeat: "Go to your seat",
      err_bad_token: "This link does not open a seat at this table.",
      err_full: "Every seat at this table is taken.",
      err_left: "You left this table: a bot plays your seat until the match ends.",
      err_no_table: "There is no such table (it may have ended).",
      err_not_started: "The game has not started: seats are still open.",
      err_over: "The match is over.",
      err_gathering: "The last trick is being gathered: your turn comes in a moment.",
      err_stale: "The table moved on before your move arrived: look again.",
      err_not_your_turn: "It is not your turn.",
      err_illegal: "That move is not allowed now.",
      err_not_your_seat: "You are watching: only the players move.",
      err_too_large: "That message was too large.",
      err_malformed: "That message was not understood.",
      err_not_listed: "This table is not open to watch: ask its players for a link.",
      loading: "Loading\u2026",
      total: "Total",
      tapToClose: "Tap to close.",
      noReplays: "The finished hands of the tables you play will be here.",
      yourTables: "Your tables",
      yourTablesIntro: "Tables this browser holds a seat at: back to your seat whenever you like.",
      openTables: "Open tables",
      openTablesIntro: "Tables their hosts listed here: take an open seat under the name below, or watch.",
      listTable: "List the table in the lobby: anyone may take an open seat, or watch without seeing a hand",
      spectate: "Watch",
      spectators: "{0} watching",
      tableOf: "Table {0}",
      seatLink: "Seat link",
      seatLinkHelp: "Open this link on another device to take your seat there (this window is told). Keep it private: it is your seat.",
      copy: "Copy",
      copied: "Copied",
      finishedTable: "finished",
      rule_match: "Match",
      rule_hands: "Hands in a match of fixed hands",
      rule_doubling: "Doubling",
      rule_projects: "Projects and baloot",
      rule_sun_double: "Sun may be doubled",
      rule_tie_rule: "Tie rule",
      rule_win_above: "Must pass 152",
      rule_four_aces_hokum: "Four aces in hokum",
      rule_baloot_kept: "Baloot always counts",
      rule_deal_rotation: "The deal passes",
      choice_target: "to 152",
      choice_hands: "a fixed number of hands",
      choice_rounding: "rounding",
      choice_last_digit: "the last digit",
      choice_four_hundred: "four hundred",
      choice_hundred: "hundred",
      choice_left: "to the left",
      choice_right: "to the right",
      joinTitle: "Baloot: join a table",
      invited: "You are invited to a Baloot table",
      takeSeat: "Take a seat",
      tableTitle: "Baloot",
      watchingTitle: "Baloot: watching",
      noToken: "This link has no seat token.",
      dealerChip: "D",
      sec: "s",
      tempo_relaxed: "relaxed",
      tempo_normal: "normal",
      tempo_fast: "fast",
      replayTitle: "Baloot replays",
      storedHands: "Stored hands",
      yourHands: "The finished hands of your table.",
      evalHands: "Hands stored by an evaluation (python -m eval --save-hands), the worst deals for side A first (d: side A's score difference).",
      colId: "id",
      colHand: "hand",
      colResult: "result",
      colD: "d",
      open: "open",
      view: "View",
      allFour: "all four",
      seatN: "seat {0}",
      tableN: "table {0}",
      teamOf: "team 0: {0}",
      handN: "Hand {0}",
      deal: "deal",
      by_person: "player",
      by_bot: "bot",
      by_timeout: "timeout",
      by_standin: "stand-in",
      sheetTitle: "Baloot score sheet",
      newSheet: "New score sheet",
      team0: "Team 0",
      team1: "Team 1",
      firstDealer: "First dealer",
      handsLabel: "Hands",
      create: "Create",
      undo: "Undo",
      linkTo: "Link to this sheet:",
      addHand: "Add a hand",
      contractLabel: "Contract",
      thrownIn: "Thrown in",
      callingTeam: "Calling team",
      levelLabel: "Level",
      lvl1: "1",
      lvl2: "2 double",
      lvl3: "3 three",
      lvl4: "4 four",
      lvl5: "5 gahwa",
      rawOf: "Card points,",
      projectsOf: "Projects,",
      projectsHint: "(as called: 20, 50, 100, 400)",
      none: "none",
      add: "Add",
      save: "Save",
      cancel: "Cancel",
      editRow: "Edit row {0}",
      edit: "edit",
      delete: "delete",
      draw: "Draw",
      wins: "{0} win",
      nextDealer: "next dealer: seat {0} ({1})",
      handsOf: "{0}/{1} hands",
      colDealer: "dealer",
      colCaller: "caller",
      colRaw: "card points",
      colProjects: "projects",
      colBaloot: "baloot",
      defaultYou: "You",
      defaultGuest: "Guest",
      defaultUs: "Us",
      defaultThem: "Them",
      q_raw: "card points",
      q_game: "game points (rounded)",
      q_projects: "projects",
      q_baloot: "baloot",
      q_total: "total",
      q_added: "added to the score",
      q_counting: "{0} counted their card points; the others have the rest of {1}",
      q_made: "The callers ({0}) made it:",
      q_lost: "The callers ({0}) lost:",
      why_totals_won: "their total is higher",
      why_totals_lost: "their total is lower",
      why_rounding: "the totals are equal, and the side that gave up more in the rounding wins",
      why_callers: "the totals and the rounding are equal, so the callers win",
      why_last_digit: "the totals are equal, and the last digit of the counting side's card points decides",
      why_kaboot: "{0} took all eight tricks (kaboot)",
      q_R7_4: "each side scores its own total.",
      q_R7_5: "the defenders take the whole hand: {0} and every project.",
      q_R7_6: "kaboot: {0} with the projects and the baloot.",
      q_R7_7: "the winners take the whole hand, {0} and every project, times {1}.",
      q_R7_8: "gahwa: the winners win the match.",
      why: "why",
      otherTabs: "Your seat is open in {0} tabs, windows or devices: a move from any of them counts. Close the others.",
      q_sep: "; ",
      timedOut: "Your time ran out: a move was played for you ({0} of {1}; after {1} in a row the table plays for you)",
      trickOne: "trick",
      round1: "Bidding, round 1",
      round2: "Bidding, round 2",
      doublingHead: "Doubling",
      confirmDelete: "Delete row {0}?",
      matchWon: "You won the match",
      matchLost: "You lost the match",
      matchDrawn: "The match is drawn",
      teamWon: "{0} won the match",
      rematch: "Play again",
      toLobby: "Back to the lobby",
      desc_random: "any legal move",
      desc_heuristic: "rules of thumb",
      desc_champion: "the trained network",
      desc_search: "looks ahead over many deals",
      desc_netsearch: "the search guided by the network: the strongest",
      agent_champion: "champion",
      agent_heuristic: "heuristic",
      agent_random: "random",
      agent_search: "search",
      agent_netsearch: "netsearch",
      leaderboard: "Leaderboard",
      boardTitle: "Baloot leaderboard",
      peopleHead: "People at this table",
      peopleNote: "Points per hand above {0} playing your seat on the same cards against the same bots (duplicate scoring; the 95% interval in brackets once there are two hands).",
      moreToScore: "More hands are being scored: this page updates itself.",
      nobodyYet: "Nobody has finished a hand here yet.",
      colRank: "#",
      colName: "name",
      colHands: "hands",
      colVsRef: "points per hand vs {0}",
      colMatches: "matches won",
      colAgainst: "against (hands)",
      wonOf: "{0} of {1}",
      agentsHead: "The bots' ladder",
      agentsNote: "Every bot against every other on the {1} deals of {0}, in duplicate (python -m eval league).",
      noLeague: "No ladder: start the server with --league FILE (a python -m eval league --json report).",
      colElo: "Elo",
      colMs: "ms per move",
      colParams: "network size",
      matrixHead: "Each against each",
      matrixNote: "Game points per deal, the row's bot against the column's, in duplicate (both teams play the same cards).",
    },
    lang: "\u0639\u0631\u0628\u064a",
  },
  ar: {
    dir: "rtl",
    suits: { S: "\u0634\u0631\u064a\u0627", H: "\u0647\u0627\u0635", D: "\u062f\u064a\u0645\u0646", C: "\u0633\u0628\u064a\u062a" },
    ranks: { "7": "\u0667", "8": "\u0668", "9": "\u0669", T: "\u0661\u0660", J: "\u0648\u0644\u062f", Q: "\u0628\u0646\u062a", K: "\u0634\u0627\u064a\u0628", A: "\u0625\u0643\u0629" },
    rankNames: { "7": "\u0633\u0628\u0639\u0629", "8": "\u062b\u0645\u0627\u0646\u064a\u0629", "9": "\u062a\u0633\u0639\u0629", T: "\u0639\u0634\u0631\u0629", J: "\u0648\u0644\u062f", Q: "\u0628\u0646\u062a", K: "\u0634\u0627\u064a\u0628", A: "\u0625\u0643\u0629" },
    contract: { hokum: "\u062d\u0643\u0645", sun: "\u0635\u0646" },
    calls: { pass: "\u0628\u0633", sun: "\u0635\u0646", hokum: "\u062d\u0643\u0645", double: "\u062f\u0628\u0644", three: "\u062b\u0631\u064a", four: "\u0641\u0648\u0631", gahwa: "\u0642\u0647\u0648\u0629" },
    levels: ["", "", "\u062f\u0628\u0644 \u00d72", "\u062b\u0631\u064a \u00d73", "\u0641\u0648\u0631 \u00d74", "\u0642\u0647\u0648\u0629"],
    projects: { sira: "\u0633\u0631\u0627", fifty: "\u062e\u0645\u0633\u064a\u0646", hundred: "\u0645\u064a\u0629", four_hundred: "\u0623\u0631\u0628\u0639\u0645\u064a\u0629" },
    status: { bot: "\u0622\u0644\u064a", human: "", autopilot: "\u0644\u0639\u0628 \u062a\u0644\u0642\u0627\u0626\u064a", hold: "\u0627\u0646\u0642\u0637\u0639 \u0627\u0644\u0627\u062a\u0635\u0627\u0644", away: "\u0622\u0644\u064a (\u063a\u0627\u0626\u0628)", left: "\u0627\u0646\u0633\u062d\u0628: \u0622\u0644\u064a" },
    seats: ["\u0623\u0646\u062a", "\u064a\u0645\u064a\u0646", "\u0627\u0644\u0634\u0631\u064a\u0643", "\u064a\u0633\u0627\u0631"],
    ui: {
      us: "\u0644\u0646\u0627", them: "\u0644\u0647\u0645", turn: "\u062f\u0648\u0631\u0643", waitingFor: "\u0628\u0627\u0646\u062a\u0638\u0627\u0631", toAct: "", toCall: "", thinking: "\u064a\u0641\u0643\u0651\u0631\u2026",
      takeOver: "\u0627\u0633\u062a\u0644\u0645", leave: "\u0627\u0646\u0633\u062d\u0628", autopilot: "\u0627\u0644\u0637\u0627\u0648\u0644\u0629 \u062a\u0644\u0639\u0628 \u0639\u0646\u0643 \u0628\u0639\u062f \u062b\u0644\u0627\u062b \u0645\u0647\u0644\u0627\u062a.",
      reconnecting: "\u0627\u0646\u0642\u0637\u0639 \u0627\u0644\u0627\u062a\u0635\u0627\u0644: \u062c\u0627\u0631\u064d \u0627\u0644\u0625\u0639\u0627\u062f\u0629\u2026", handOver: "\u0627\u0646\u062a\u0647\u062a \u0627\u0644\u062c\u0648\u0644\u0629", matchOver: "\u0627\u0646\u062a\u0647\u062a \u0627\u0644\u0635\u0643\u0629",
      won: "\u0641\u0627\u0632", lost: "\u062e\u0633\u0631", thrown: "\u0645\u0631\u0648\u0633\u0629: \u0627\u0644\u0643\u0644 \u0628\u0633", kaboot: "\u0643\u0628\u0648\u062a", baloot: "\u0628\u0644\u0648\u062a",
      contractBy: "\u0645\u0646", level: "\u0627\u0644\u0645\u0633\u062a\u0648\u0649", trick: "\u0627\u0644\u0623\u0643\u0644\u0629", lastTrick: "\u0627\u0644\u0623\u0643\u0644\u0629 \u0627\u0644\u0633\u0627\u0628\u0642\u0629", calls2: "\u0627\u0644\u0634\u0631\u0627\u0621", turned: "\u0627\u0644\u0648\u0631\u0642\u0629 \u0627\u0644\u0645\u0643\u0634\u0648\u0641\u0629",
      waitingSeats: "\u0628\u0627\u0646\u062a\u0638\u0627\u0631 \u0627\u0644\u0644\u0627\u0639\u0628\u064a\u0646 \u0627\u0644\u0645\u062f\u0639\u0648\u064a\u0646\u2026", invite: "\u0631\u0627\u0628\u0637 \u0627\u0644\u062f\u0639\u0648\u0629", score: "\u0627\u0644\u0646\u062a\u064a\u062c\u0629", target: "\u0625\u0644\u0649 \u0661\u0665\u0662",
      hands: "\u062c\u0648\u0644\u0627\u062a", next: "\u0627\u0644\u062c\u0648\u0644\u0629 \u0627\u0644\u062a\u0627\u0644\u064a\u0629", dealer: "\u0627\u0644\u0645\u0648\u0632\u0639", raw: "\u0627\u0644\u0623\u0628\u0646\u0627\u0637", tricks: "\u0623\u0643\u0644\u0627\u062a", gained: "\u0633\u062c\u0651\u0644",
      team: "\u0641\u0631\u064a\u0642", round: "\u0627\u0644\u062c\u0648\u0644\u0629", takes: "\u064a\u0623\u0643\u0644",
      brand: "بلوت",
      scoreSheet: "ورقة الحساب",
      replays: "الإعادات",
      lobbyTitle: "بلوت: العب ضد الآلة",
      play: "العب",
      playIntro: "تلعب في مقعد واحد وشريكك مقابلك. كل مقعد آخر تلعبه الآلة أو صديق تدعوه برابط خاص.",
      yourName: "اسمك",
      yourSeat: "مقعدك",
      seatTeam: "المقعد {0} (الفريق {1})",
      rightSeat: "اليمين (المقعد التالي)",
      partner: "الشريك",
      leftSeat: "اليسار (المقعد السابق)",
      tempo: "الوقت",
      tempoRelaxed: "هادئ: 60 ث للورقة و75 ث للشراء",
      tempoNormal: "عادي: 30 ث للورقة و40 ث للشراء",
      tempoFast: "سريع: 15 ث للورقة و25 ث للشراء",
      botSpeed: "سرعة الآلة (ثوانٍ لكل حركة)",
      ruleVariants: "خيارات القوانين",
      start: "ابدأ اللعب",
      watchTitle: "شاهد أربع آلات",
      watchSpeed: "السرعة (ثوانٍ لكل حركة)",
      watch: "شاهد",
      inviteFriend: "ادعُ صديقًا",
      sendLink: "أرسل لكل لاعب تدعوه الرابط الخاص بمقعده:",
      invitedTo: "يدعوك {0} إلى الجلوس {1}.",
      invitedSeat1: "على يمينه",
      invitedSeat2: "شريكًا له، مقابله",
      invitedSeat3: "على يساره",
      invitedRules: "القواعد:",
      invitedClock: "الوقت: {0} ث للورقة، {1} ث للنداء.",
      goSeat: "اذهب إلى مقعدك",
      err_bad_token: "هذا الرابط لا يفتح مقعدًا في هذه الطاولة.",
      err_full: "كل المقاعد في هذه الطاولة مشغولة.",
      err_left: "غادرت هذه الطاولة: تلعب الآلة مكانك حتى نهاية الصكة.",
      err_no_table: "لا توجد طاولة بهذا الرابط (ربما انتهت).",
      err_not_started: "لم تبدأ اللعبة بعد: ما زالت مقاعد فارغة.",
      err_over: "انتهت الصكة.",
      err_gathering: "تُجمع الأكلة الأخيرة: يأتي دورك بعد لحظة.",
      err_stale: "تقدّمت الطاولة قبل وصول حركتك: انظر مجددًا.",
      err_not_your_turn: "ليس دورك.",
      err_illegal: "هذه الحركة غير مسموحة الآن.",
      err_not_your_seat: "أنت تشاهد: اللاعبون وحدهم يتحركون.",
      err_too_large: "الرسالة كبيرة جدًا.",
      err_malformed: "لم تُفهم الرسالة.",
      err_not_listed: "هذه الطاولة ليست مفتوحة للمشاهدة: اطلب رابطًا من لاعبيها.",
      loading: "جارٍ التحميل\u2026",
      total: "المجموع",
      tapToClose: "انقر للإغلاق.",
      noReplays: "ستظهر هنا الجولات المنتهية من الطاولات التي تلعب فيها.",
      yourTables: "طاولاتك",
      yourTablesIntro: "طاولات لك فيها مقعد في هذا المتصفح: ارجع إلى مقعدك متى شئت.",
      openTables: "طاولات مفتوحة",
      openTablesIntro: "طاولات عرضها أصحابها هنا: اجلس في مقعد شاغر بالاسم المكتوب أدناه، أو شاهد.",
      listTable: "اعرض الطاولة في الردهة: لأي أحد أن يجلس في مقعد شاغر، أو أن يشاهد دون أن يرى ورق أحد",
      spectate: "شاهد",
      spectators: "{0} يشاهدون",
      tableOf: "طاولة {0}",
      seatLink: "رابط المقعد",
      seatLinkHelp: "افتح هذا الرابط على جهاز آخر لتأخذ مقعدك هناك (وتُبلَّغ هذه النافذة). احتفظ به لنفسك: إنه مقعدك.",
      copy: "انسخ",
      copied: "نُسخ",
      finishedTable: "انتهت",
      rule_match: "الصكة",
      rule_hands: "عدد الجولات في صكة محددة الجولات",
      rule_doubling: "الدبل",
      rule_projects: "المشاريع والبلوت",
      rule_sun_double: "يجوز دبل الصن",
      rule_tie_rule: "قاعدة التعادل",
      rule_win_above: "يجب تجاوز 152",
      rule_four_aces_hokum: "أربع إكك في الحكم",
      rule_baloot_kept: "البلوت يُحسب دائمًا",
      rule_deal_rotation: "يدور التوزيع",
      choice_target: "إلى 152",
      choice_hands: "عدد ثابت من الجولات",
      choice_rounding: "التقريب",
      choice_last_digit: "الرقم الأخير",
      choice_four_hundred: "أربعمية",
      choice_hundred: "مية",
      choice_left: "إلى اليسار",
      choice_right: "إلى اليمين",
      joinTitle: "بلوت: انضم إلى طاولة",
      invited: "أنت مدعو إلى طاولة بلوت",
      takeSeat: "اجلس",
      tableTitle: "بلوت",
      watchingTitle: "بلوت: مشاهدة",
      noToken: "هذا الرابط لا يحمل مفتاح مقعد.",
      dealerChip: "م",
      sec: "ث",
      tempo_relaxed: "هادئ",
      tempo_normal: "عادي",
      tempo_fast: "سريع",
      replayTitle: "إعادات البلوت",
      storedHands: "الجولات المحفوظة",
      yourHands: "الجولات المنتهية في طاولتك.",
      evalHands: "جولات حفظها التقييم، الأسوأ للطرف الأول أولًا (الفرق: فرق نقاط الطرف الأول).",
      colId: "الرقم",
      colHand: "الجولة",
      colResult: "النتيجة",
      colD: "الفرق",
      open: "افتح",
      view: "العرض",
      allFour: "الأربعة",
      seatN: "المقعد {0}",
      tableN: "الطاولة {0}",
      teamOf: "الفريق 0: {0}",
      handN: "الجولة {0}",
      deal: "التوزيع",
      by_person: "لاعب",
      by_bot: "آلة",
      by_timeout: "انتهى الوقت",
      by_standin: "بديل",
      sheetTitle: "ورقة حساب البلوت",
      newSheet: "ورقة حساب جديدة",
      team0: "الفريق 0",
      team1: "الفريق 1",
      firstDealer: "أول موزع",
      handsLabel: "الجولات",
      create: "أنشئ",
      undo: "تراجع",
      linkTo: "رابط هذه الورقة:",
      addHand: "أضف جولة",
      contractLabel: "العقد",
      thrownIn: "مروسة",
      callingTeam: "الفريق المشتري",
      levelLabel: "المستوى",
      lvl1: "1",
      lvl2: "2 دبل",
      lvl3: "3 ثري",
      lvl4: "4 فور",
      lvl5: "5 قهوة",
      rawOf: "الأبناط،",
      projectsOf: "المشاريع،",
      projectsHint: "(كما تُنادى: 20، 50، 100، 400)",
      none: "لا شيء",
      add: "أضف",
      save: "احفظ",
      cancel: "إلغاء",
      editRow: "تعديل السطر {0}",
      edit: "تعديل",
      delete: "حذف",
      draw: "تعادل",
      wins: "فاز {0}",
      nextDealer: "الموزع التالي: المقعد {0} ({1})",
      handsOf: "{0}/{1} جولات",
      colDealer: "الموزع",
      colCaller: "المشتري",
      colRaw: "الأبناط",
      colProjects: "المشاريع",
      colBaloot: "البلوت",
      defaultYou: "أنت",
      defaultGuest: "ضيف",
      defaultUs: "لنا",
      defaultThem: "لهم",
      q_raw: "الأبناط",
      q_game: "النقاط بعد التقريب",
      q_projects: "المشاريع",
      q_baloot: "البلوت",
      q_total: "المجموع",
      q_added: "يُضاف إلى النتيجة",
      q_counting: "حسب {0} أبناطهم، وللآخرين باقي الـ{1}",
      q_made: "نجح المشترون ({0}):",
      q_lost: "خسر المشترون ({0}):",
      why_totals_won: "مجموعهم أعلى",
      why_totals_lost: "مجموعهم أقل",
      why_rounding: "تساوى المجموعان، ويفوز من خسر أكثر في التقريب",
      why_callers: "تساوى المجموعان والتقريب، فيفوز المشترون",
      why_last_digit: "تساوى المجموعان، ويحسم الرقم الأخير من أبناط الحاسبين",
      why_kaboot: "أكل {0} الأكلات الثماني (كبوت)",
      q_R7_4: "لكل فريق مجموعه.",
      q_R7_5: "يأخذ الخصم الجولة كاملة: {0} وكل المشاريع.",
      q_R7_6: "كبوت: {0} مع المشاريع والبلوت.",
      q_R7_7: "يأخذ الفائز الجولة كاملة، {0} وكل المشاريع، مضروبة في {1}.",
      q_R7_8: "قهوة: الفائز يفوز بالصكة.",
      why: "لماذا",
      otherTabs: "مقعدك مفتوح في {0} نوافذ أو أجهزة: أي حركة من أي منها تُحسب. أغلق الأخرى.",
      q_sep: "؛ ",
      timedOut: "انتهى وقتك فلُعبت عنك حركة ({0} من {1}؛ بعد {1} متتالية تلعب الطاولة عنك)",
      trickOne: "أكلة",
      round1: "الشراء، الدور الأول",
      round2: "الشراء، الدور الثاني",
      doublingHead: "الدبل",
      confirmDelete: "حذف السطر {0}؟",
      matchWon: "فزتم بالصكة",
      matchLost: "خسرتم الصكة",
      matchDrawn: "تعادلت الصكة",
      teamWon: "فاز {0} بالصكة",
      rematch: "العب مرة أخرى",
      toLobby: "العودة إلى الصالة",
      desc_random: "أي حركة جائزة",
      desc_heuristic: "قواعد اللعب المعروفة",
      desc_champion: "الشبكة المدرَّبة",
      desc_search: "يبحث في توزيعات كثيرة",
      desc_netsearch: "البحث بتوجيه الشبكة: الأقوى",
      agent_champion: "البطل",
      agent_heuristic: "القواعد",
      agent_random: "عشوائي",
      agent_search: "البحث",
      agent_netsearch: "البحث الموجّه",
      leaderboard: "لوحة الصدارة",
      boardTitle: "بلوت: لوحة الصدارة",
      peopleHead: "اللاعبون في هذه الطاولة",
      peopleNote: "النقاط لكل جولة فوق ما يسجله {0} في مقعدك بالورق نفسه ضد الآلات نفسها (حساب مكرر؛ وبين القوسين مجال الثقة ٩٥٪ بعد جولتين).",
      moreToScore: "تُحسب جولات أخرى الآن: تتحدث الصفحة من نفسها.",
      nobodyYet: "لم ينهِ أحد جولة هنا بعد.",
      colRank: "#",
      colName: "الاسم",
      colHands: "الجولات",
      colVsRef: "النقاط لكل جولة مقابل {0}",
      colMatches: "الصكات المكسوبة",
      colAgainst: "ضد (جولات)",
      wonOf: "{0} من {1}",
      agentsHead: "ترتيب الآلات",
      agentsNote: "كل آلة ضد كل آلة على توزيعات {0} وعددها {1}، بالحساب المكرر.",
      noLeague: "لا يوجد ترتيب: شغّل الخادم مع ملف ترتيب.",
      colElo: "التصنيف",
      colMs: "ملي ثانية للحركة",
      colParams: "حجم الشبكة",
      matrixHead: "كل واحد ضد الآخر",
      matrixNote: "النقاط لكل توزيعة، آلة السطر ضد آلة العمود، بالحساب المكرر (يلعب الفريقان الورق نفسه).",
    },
    lang: "English",
  },
};

function lang() {
  return localStorage.getItem("baloot-lang") === "ar" ? "ar" : "en";
}
function T() {
  return I18N[lang()];
}
function toggleLang() {
  localStorage.setItem("baloot-lang", lang() === "ar" ? "en" : "ar");
  applyDir();
  if (window.render) window.render();
}
function applyDir() {
  document.documentElement.lang = lang();
  document.documentElement.dir = T().dir;
  const b = document.getElementById("lang");
  if (b) b.textContent = T().lang;
  translatePage();
  localizeDigits(document.body);
}

// A page's words come from the language's `ui` table: tr(key, ...args) fills {0}, {1}; the
// elements of a page's HTML marked data-t="key" (their text) or data-t-placeholder="key", and
// data-t-value="key" (a default value), data-seat-label="N" ("seat N"), and <body data-title="key">, are translated by translatePage on load and on the language switch.
function tr(key, ...args) {
  const s = T().ui[key] ?? I18N.en.ui[key] ?? key;
  return s.replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
}
function agentName(name) {
  // the offered agents by their names in the page's language; a bundle keeps its folder's name
  // (a shipped one, policies/NAME, its name alone)
  const short = String(name).startsWith("policies/") ? String(name).slice("policies/".length) : name;
  return T().ui["agent_" + short] ?? short;
}
function playerName(name, bot) {
  // a bot by its agent's name in the page's language; a person's name isolated, so that its
  // direction does not move the brackets around it (Unicode FSI ... PDI)
  return bot ? agentName(name) : `\u2068${name}\u2069`;
}
function teamName(team) {
  return `${tr("team")} ${team}`;
}
function translatePage() {
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = tr(e.dataset.t);
  for (const e of document.querySelectorAll("[data-seat-label]")) e.textContent = tr("seatN", e.dataset.seatLabel);
  for (const e of document.querySelectorAll("[data-t-placeholder]")) e.placeholder = tr(e.dataset.tPlaceholder);
  for (const e of document.querySelectorAll("[data-t-value]")) {
    // a default value the person has not changed follows the language
    if (Object.values(I18N).some((L) => L.ui[e.dataset.tValue] === e.value)) e.value = tr(e.dataset.tValue);
  }
  if (document.body && document.body.dataset.title) document.title = tr(document.body.dataset.title);
}

// One digit style per language: Arabic-Indic digits on a page in Arabic, ASCII digits in
// English, in every text the page shows (not in form fields, links to copy or code), whoever
// wrote it; a MutationObserver keeps it so as the pages redraw.
const AR_DIGITS = "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669";
function localDigits(text) {
  return lang() === "ar"
    ? text.replace(/[0-9]/g, (d) => AR_DIGITS[Number(d)])
    : text.replace(/[\u0660-\u0669]/g, (d) => String(AR_DIGITS.indexOf(d)));
}
function asciiDigits(text) {
  // what a person typed, read as a number whichever digits they used
  return String(text).replace(/[\u0660-\u0669]/g, (d) => String(AR_DIGITS.indexOf(d)));
}
function localizeDigits(root) {
  if (!root) return;
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode;
    if (n.parentElement && n.parentElement.closest("code, script, style")) continue;
    const t = localDigits(n.nodeValue);
    if (t !== n.nodeValue) n.nodeValue = t;
  }
  if (document.title !== localDigits(document.title)) document.title = localDigits(document.title);
}

function cardLabel(name) {
  // "TH" -> "10 of Hearts" / "عشرة هاص"
  const t = T();
  const r = name[0], s = name[1];
  return lang() === "ar" ? `${t.rankNames[r]} ${t.suits[s]}` : `${t.ranks[r]} ${SUIT_SYMBOL[s]} (${t.rankNames[r]} of ${t.suits[s]})`;
}

function cardEl(name, opts = {}) {
  const el = document.createElement(opts.button ? "button" : "div");
  if (!name) {
    el.className = "card back" + (opts.small ? " small" : "");
    return el;
  }
  const r = name[0], s = name[1];
  el.className = "card" + (RED[s] ? " red" : "") + (opts.small ? " small" : "");
  el.dataset.card = name;
  el.title = cardLabel(name);
  el.setAttribute("aria-label", cardLabel(name));
  const rank = document.createElement("span");
  rank.textContent = T().ranks[r];
  rank.className = rank.textContent.length > 2 ? "rank word" : "rank"; // the Arabic court cards are words
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUIT_SYMBOL[s];
  el.append(rank, suit);
  return el;
}

// The cards on the table of a state message (the live table's or a replay frame): the trick
// being played, or, while a finished trick lies there (`gathering`), its four cards with the
// winner's marked. `rel` maps a seat to its place (0 bottom, 1 right, 2 top, 3 left).
// A private link to pass on: copied (the field selected, for pages without the clipboard API),
// and the button says so. `share`: offered to the system's share sheet first where there is one
// (a phone), for an invitation.
async function copyLink(url, button, field, share = false) {
  if (share && navigator.share) {
    try {
      await navigator.share({ title: tr("invited"), url });
      return;
    } catch (e) {
      // dismissed, or not allowed here: copy instead
    }
  }
  if (field) field.select();
  try {
    await navigator.clipboard.writeText(url);
  } catch (e) {
    document.execCommand("copy"); // http pages without the clipboard API
  }
  button.textContent = tr("copied");
}

// Motion: a card new on the table slides in from its seat's side ("arrive"); a finished trick
// slides to its winner's side just before it is gathered ("gather-R", timed by the room's
// `gather`). Cards already drawn are drawn still, so a redraw does not replay them. People who
// ask for reduced motion get none (style.css).
let TRICK_SHOWN = new Set();
function drawTrick(m, rel) {
  for (let r = 0; r < 4; r++) document.getElementById(`slot-${r}`).replaceChildren();
  const done = m.gathering && m.last_trick ? m.last_trick : null;
  const shown = new Set();
  for (const [seat, name] of done ? done.cards : m.trick || []) {
    const card = cardEl(name);
    const key = `${seat}:${name}`;
    shown.add(key);
    if (!TRICK_SHOWN.has(key)) card.classList.add("arrive");
    if (done && seat === done.winner) card.classList.add("winner");
    if (done && m.gather > 0.5) { // a live table's pause (replays step by hand: no gathering motion)
      card.classList.add(`gather-${rel(done.winner)}`);
      card.style.animationDelay = `${m.gather - 0.45}s`;
    }
    document.getElementById(`slot-${rel(seat)}`).append(card);
  }
  TRICK_SHOWN = shown;
  return done ? done.winner : null;
}

// A hand's score as a score keeper explains it, drawn from the engine's own breakdown
// (`baloot_env.scoring.qaid`, sent with every result): nothing is computed here. `names` are
// the two teams' labels, team 0 first.
function qaidBox(q, names) {
  const rows = [["q_raw", q.raw], ["q_game", q.game_points], ["q_projects", q.projects], ["q_baloot", q.baloot],
    ["q_total", q.totals], ["q_added", q.score]];
  const table = el("table", { class: "qaid" }, el("tr", {}, el("th", {}), el("th", {}, names[0]), el("th", {}, names[1])),
    ...rows.map(([key, v]) => el("tr", { class: key }, el("th", {}, tr(key)), el("td", {}, v[0]), el("td", {}, v[1]))));
  const callers = names[q.callers];
  const why = q.decided_by === "kaboot" ? tr("why_kaboot", names[q.kaboot])
    : q.decided_by === "totals" ? tr(q.callers_won ? "why_totals_won" : "why_totals_lost") : tr("why_" + q.decided_by);
  const rule = tr("q_" + q.rule.replace(".", "_"), q.rule === "R7.6" ? q.kaboot_value : q.hand_total, q.level);
  return el("div", { class: "qaid-box", "data-rule": q.rule },
    el("p", { class: "qaid-counting" }, tr("q_counting", names[q.counting], q.hand_total)), table,
    el("p", { class: "qaid-why", title: q.rule }, `${tr(q.callers_won ? "q_made" : "q_lost", callers)} ${why}${tr("q_sep")}${rule}`));
}

const ACTION_NAMES = ["pass", "hokum", "hokum", "hokum", "hokum", "sun", "double", "three", "four", "gahwa"];
function actionLabel(id) {
  // R9 ids: 32 pass, 33-36 hokum S H D C, 37 sun, 38-41 double three four gahwa
  const t = T();
  if (id < 32) return cardLabel("789TJQKA"[id & 7] + "SHDC"[id >> 3]);
  const kind = ACTION_NAMES[id - 32];
  if (kind === "hokum") {
    const s = "SHDC"[id - 33];
    return `${t.calls.hokum} ${SUIT_SYMBOL[s]} ${t.suits[s]}`;
  }
  return t.calls[kind];
}

function contractLabel(contract, trump) {
  if (!contract) return "";
  const t = T();
  return contract === "hokum" && trump ? `${t.contract.hokum} ${SUIT_SYMBOL[trump]} ${t.suits[trump]}` : t.contract[contract];
}

// A page's error line (#error): an Error's message or a text; nothing hides it.
// A server refusal's words in the page's language, by its code (the server's own message, in
// English and for developers, is the fallback for a code the page does not know).
function refusal(code, message) {
  return T().ui["err_" + code] ?? I18N.en.ui["err_" + code] ?? message;
}

function showError(e) {
  const box = document.getElementById("error");
  box.hidden = !e;
  box.textContent = e ? String(e.message || e) : "";
}

async function api(method, url, body) {
  const r = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error ? (typeof data.error === "string" ? data.error : JSON.stringify(data.error)) : r.statusText);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c.nodeType ? c : String(c));
  return e;
}

document.addEventListener("DOMContentLoaded", () => {
  applyDir();
  new MutationObserver(() => localizeDigits(document.body)).observe(document.body, {
    childList: true,
    subtree: true,
    characterData: true,
  });
});


// The seats this browser holds (issue 49): each room's token in localStorage, so that a closed
// tab, a restarted browser or a new tab finds the seat again; the lobby lists them. A token is
// the seat itself, so it stays on this device unless the player copies the seat link.
const HELD_SEATS = "baloot-seats";
const MAX_HELD_SEATS = 20;
function heldSeats() {
  try {
    const list = JSON.parse(localStorage.getItem(HELD_SEATS) || "[]");
    return Array.isArray(list) ? list.filter((s) => s && typeof s.room === "string" && typeof s.token === "string") : [];
  } catch (e) {
    return []; // a damaged entry is forgotten, never an error on the page
  }
}
function holdSeat(entry) {
  const rest = heldSeats().filter((s) => !(s.room === entry.room && s.kind === entry.kind));
  const old = heldSeats().find((s) => s.room === entry.room && s.kind === entry.kind) || {};
  const list = [{ ...old, ...entry, at: Date.now() }, ...rest].slice(0, MAX_HELD_SEATS);
  localStorage.setItem(HELD_SEATS, JSON.stringify(list));
}
function dropSeat(room, kind) {
  localStorage.setItem(HELD_SEATS, JSON.stringify(heldSeats().filter((s) => !(s.room === room && s.kind === kind))));
}
function heldToken(room, kind) {
  const found = heldSeats().find((s) => s.room === room && s.kind === kind);
  return found ? found.token : "";
}
function seatUrl(s) {
  return `${location.origin}/${s.kind}/${s.room}#${encodeURIComponent(s.token)}`;
}
