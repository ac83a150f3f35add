/// The preview page's stylesheet and script (inline: the page needs no other request).
enum PreviewAssets {
    static let css = """
        :root { color-scheme: dark; }
        body { margin: 0; padding: 24px; background: #0b0b0f; color: #f2f2f7;
          font: 15px -apple-system, "SF Pro Text", "Helvetica Neue", Arial, sans-serif; }
        header, footer { color: #8e8e93; font-size: 13px; margin-bottom: 18px; }
        footer { margin-top: 18px; }
        h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .08em; color: #8e8e93; margin: 18px 0 8px; }
        .pill { background: #000; border-radius: 28px; margin: 8px 0; box-shadow: 0 0 0 1px #1c1c1e; }
        .compact { display: flex; align-items: center; justify-content: space-between; width: 360px; height: 37px;
          padding: 0 16px; box-sizing: border-box; font-weight: 600; font-variant-numeric: tabular-nums; }
        .cutout { width: 120px; height: 30px; border-radius: 15px; background: #111; }
        #compact-leading { color: #ffd60a; }
        #compact-trailing { color: #64d2ff; }
        .minimal-wrap { width: 44px; height: 37px; display: flex; align-items: center; justify-content: center; }
        #minimal { font-size: 11px; font-weight: 700; }
        .expanded-wrap { width: 360px; padding: 16px 20px; box-sizing: border-box; border-radius: 44px; }
        #expanded .line { padding: 2px 0; font-variant-numeric: tabular-nums; }
        #expanded .line:first-child { font-size: 20px; font-weight: 700; }
        .card { width: 360px; box-sizing: border-box; padding: 16px; border-radius: 22px;
          background: rgba(44, 44, 46, .85); backdrop-filter: blur(20px); }
        .row { display: flex; justify-content: space-between; align-items: baseline; }
        #lock-headline { font-size: 22px; font-weight: 700; font-variant-numeric: tabular-nums; }
        #lock-detail { margin-top: 4px; color: #d1d1d6; }
        #lock-footer { margin-top: 8px; color: #ffd60a; }
        #result-line { margin-top: 6px; font-weight: 600; color: #30d158; }
        #result-line:empty { display: none; }
        .phase { font-size: 11px; text-transform: uppercase; padding: 2px 8px; border-radius: 9px; background: #3a3a3c; }
        .phase.live { background: #ff453a; }
        .phase.ended { background: #30d158; color: #000; }
        """

    static let script = """
        (function () {
          function pick(device) {
            var list = (device && device.activities) || [];
            if (PREVIEW.match) { return list.find(function (a) { return a.matchId === PREVIEW.match; }) || null; }
            var best = null;
            list.forEach(function (a) {
              if (!best || a.timestamp > best.timestamp || (a.timestamp === best.timestamp && a.matchId > best.matchId)) { best = a; }
            });
            return best;
          }
          function set(id, text) {
            var el = document.getElementById(id);
            if (el && el.textContent !== text) { el.textContent = text; }
          }
          function lines(s) {
            var e = s.expanded, out = [];
            out.push(e.batting.abbr + ' ' + e.batting.score + ' (' + e.batting.overs + ')');
            out.push(e.bowling.abbr + ' ' + e.bowling.score + (e.bowling.overs ? ' (' + e.bowling.overs + ')' : ''));
            (e.batters || []).forEach(function (b) { out.push(b.name + (b.onStrike ? '*' : '') + ' ' + b.score); });
            if (e.bowler) { out.push(e.bowler.name + ' ' + e.bowler.figures); }
            if (e.lastBalls && e.lastBalls.length) { out.push(e.lastBalls.join(' ')); }
            if (e.equation) { out.push(e.equation); }
            out.push([e.runRate, e.requiredRate].filter(function (x) { return x; }).join(' · '));
            return out;
          }
          function render(device) {
            set('last-event', device.lastEvent || 'none');
            var a = pick(device);
            var box = document.getElementById('expanded');
            if (!a) {
              set('lock-headline', 'No Live Activity yet'); set('lock-footer', 'Waiting for a push…');
              ['lock-detail', 'compact-leading', 'compact-trailing', 'minimal', 'result-line', 'match-phase', 'match-title']
                .forEach(function (id) { set(id, ''); });
              set('activity-state', 'none');
              box.textContent = '';
              return;
            }
            var s = a.contentState;
            set('lock-headline', s.lockScreen.headline);
            set('lock-detail', s.lockScreen.detail);
            set('lock-footer', s.lockScreen.footer);
            set('compact-leading', s.compactLeading.teamAbbr + ' ' + s.compactLeading.score);
            set('compact-trailing', s.compactTrailing.overs + ' · ' + s.compactTrailing.runRate);
            set('minimal', s.minimal.text);
            set('result-line', s.resultLine || '');
            set('match-phase', s.matchDisplayState);
            document.getElementById('match-phase').className = 'phase ' + s.matchDisplayState;
            set('activity-state', a.state);
            set('match-title', s.title);
            var wanted = lines(s);
            var current = Array.prototype.map.call(box.children, function (c) { return c.textContent; });
            if (current.join('\\n') !== wanted.join('\\n')) {
              box.textContent = '';
              wanted.forEach(function (t) { var d = document.createElement('div'); d.className = 'line'; d.textContent = t; box.appendChild(d); });
            }
          }
          function status(text) { set('status', text); }
          function tick() {
            fetch('/devices/' + encodeURIComponent(PREVIEW.device), { cache: 'no-store' })
              .then(function (r) { if (!r.ok) { throw new Error('HTTP ' + r.status); } return r.json(); })
              .then(function (device) { render(device); status('live · updated ' + new Date().toLocaleTimeString()); })
              .catch(function (e) { status('simulator unreachable (' + e.message + ')'); });
          }
          setInterval(tick, 1000);
          tick();
        })();
        """
}
