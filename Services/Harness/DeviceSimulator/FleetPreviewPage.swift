import Foundation
import Runtime

/// `GET /preview/all[?match=ID]`: every simulated device of the run on one page, as its user sees it — the
/// Dynamic Island (compact) and the Lock Screen card of the match's activity, the alert banner a priority-10 push
/// raised (while iOS would still show it), the activity's state (active, stale, ended, dismissed: stale and ended
/// cards are dimmed and badged), and the device's latest pushes (kind, token, priority, bytes, age at delivery).
/// The server renders it; the page re-fetches `/preview/all/fragment` every second and swaps the grid in.
/// Stable ids per device: #device-<id>, #banner-<id>, #timeline-<id>, #state-<id>, #headline-<id>.
enum FleetPreviewPage {
    static func render(matchId: String?, snapshots: [DeviceSnapshot]) -> String {
        let query = matchId.map { "?match=" + (($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)) ?? "") } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sightscreen preview · \(snapshots.count) devices</title>
            <style>\(PreviewAssets.css)\(css)</style></head>
            <body>
            <header>\(snapshots.count) simulated devices\(matchId.map { " · match " + PreviewPage.escape($0) } ?? "") · refreshes every second</header>
            <main id="fleet">\(fragment(matchId: matchId, snapshots: snapshots))</main>
            <script>
            (function () {
              function refresh() {
                fetch(\(PreviewPage.jsonString("/preview/all/fragment" + query)), { cache: 'no-store' })
                  .then(function (r) { return r.ok ? r.text() : null; })
                  .then(function (html) { if (html !== null) { document.getElementById('fleet').innerHTML = html; } })
                  .catch(function () {});
              }
              setInterval(refresh, 1000);
            })();
            </script>
            </body></html>
            """
    }

    /// The grid of device cards.
    static func fragment(matchId: String?, snapshots: [DeviceSnapshot]) -> String {
        snapshots.map { card($0, matchId: matchId) }.joined(separator: "\n")
    }

    static func card(_ snapshot: DeviceSnapshot, matchId: String?) -> String {
        let id = PreviewPage.escape(snapshot.deviceId)
        let activity = PreviewPage.pick(snapshot, matchId: matchId)
        let text = PreviewPage.texts(for: activity)
        func value(_ key: String) -> String { PreviewPage.escape(text[key] ?? "") }
        let state = activity?.state ?? "none"
        let banner = snapshot.banner.map { banner in
            """
            <div class="banner" id="banner-\(id)"><div class="banner-app">SIGHTSCREEN · now</div>\
            <div class="banner-title">\(PreviewPage.escape(banner.title))</div><div class="banner-body">\(PreviewPage.escape(banner.body))</div></div>
            """
        } ?? ""
        let rows = snapshot.recentPushes.prefix(8).map { push in
            "<tr><td>\(PreviewPage.escape(push.kind))</td><td>\(PreviewPage.escape(push.via))</td><td>\(push.priority.map(String.init) ?? "-")</td>"
                + "<td>\(push.bytes) B</td><td>\(push.ageMs.map(Self.age) ?? "-")</td></tr>"
        }.joined()
        return """
            <article class="device state-\(PreviewPage.escape(state))" id="device-\(id)">
              <div class="device-head"><span>\(id)</span><span>\(PreviewPage.escape(snapshot.userId))</span><span>\(PreviewPage.escape(snapshot.mode))</span>\
            <span class="badge" id="state-\(id)">\(PreviewPage.escape(state))</span></div>
              \(banner)
              <div class="pill compact"><div>\(value("compact-leading"))</div><div class="cutout"></div><div>\(value("compact-trailing"))</div></div>
              <div class="card">
                <div class="row"><span class="headline" id="headline-\(id)">\(value("lock-headline"))</span>\
            <span class="phase \(value("match-phase"))">\(value("match-phase"))</span></div>
                <div class="detail">\(value("lock-detail"))</div>
                <div class="footer-line">\(value("lock-footer"))</div>
                <div class="result">\(value("result-line"))</div>
              </div>
              <table class="timeline" id="timeline-\(id)"><thead><tr><th>push</th><th>via</th><th>prio</th><th>size</th><th>age</th></tr></thead>\
            <tbody>\(rows)</tbody></table>
            </article>
            """
    }

    /// "850 ms", "2.4 s".
    static func age(_ milliseconds: Int64) -> String { SecondsText.of(Double(max(0, milliseconds)) / 1000) }

    static let css = """
        #fleet { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 20px; }
        .device { position: relative; padding: 12px; border-radius: 26px; background: #151518; }
        .device-head { display: flex; gap: 10px; font-size: 12px; color: #8e8e93; margin-bottom: 8px; }
        .badge { margin-left: auto; padding: 1px 8px; border-radius: 8px; background: #30d158; color: #000; }
        .state-stale .badge { background: #ff9f0a; } .state-ended .badge, .state-dismissed .badge { background: #636366; color: #fff; }
        .state-stale .card, .state-ended .card, .state-dismissed .card { opacity: .55; }
        .headline { font-size: 20px; font-weight: 700; font-variant-numeric: tabular-nums; }
        .detail { margin-top: 4px; color: #d1d1d6; } .footer-line { margin-top: 6px; color: #ffd60a; }
        .result { margin-top: 4px; color: #30d158; font-weight: 600; } .result:empty { display: none; }
        .banner { position: absolute; top: 34px; left: 12px; right: 12px; z-index: 2; padding: 10px 14px; border-radius: 18px;
          background: rgba(58, 58, 60, .96); box-shadow: 0 6px 24px rgba(0, 0, 0, .5); }
        .banner-app { font-size: 11px; color: #8e8e93; } .banner-title { font-weight: 700; } .banner-body { color: #e5e5ea; }
        .timeline { width: 100%; margin-top: 10px; font-size: 12px; color: #aeaeb2; border-collapse: collapse; }
        .timeline th { text-align: left; font-weight: 500; color: #636366; }
        """
}
