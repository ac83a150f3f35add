import DeliveryRecord
import HTTPServer
import Operations

/// The support page: plain HTML and CSS rendered by the api (no build step, no script but the sign-in's few lines): per
/// device, per Live Activity, the findings first, then a timeline of its life and deliveries, newest first. Every value
/// is escaped (`HTMLText`); tokens arrive masked.
enum SupportPage {
    /// The answer: HTML, never cached, never sniffed, no framing, no referrer, scripts only inline.
    static func html(_ page: String, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers + [
            HTTPHeader(name: "Content-Type", value: "text/html; charset=utf-8"),
            HTTPHeader(name: "Cache-Control", value: "no-store"),
            HTTPHeader(name: "X-Content-Type-Options", value: "nosniff"),
            HTTPHeader(name: "Referrer-Policy", value: "no-referrer"),
            HTTPHeader(name: "Content-Security-Policy",
                       value: "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"),
        ], body: Array(page.utf8))
    }

    static let style = """
        body{font:14px/1.45 -apple-system,system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7}
        header{background:#0b3d2e;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;opacity:.85}
        main{padding:16px 24px;max-width:1200px}section.device{background:#fff;border-radius:10px;padding:12px 18px;margin:14px 0;
        box-shadow:0 1px 3px rgba(0,0,0,.08)}h2{font-size:17px;margin:6px 0}h3{font-size:15px;margin:14px 0 6px}
        dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:4px 0}dt{color:#6e6e73}dd{margin:0}
        article{border-top:1px solid #e5e5ea;padding-top:6px}ul.findings{list-style:none;padding:0;margin:6px 0}
        ul.findings li{padding:6px 10px;border-radius:6px;margin:4px 0}li.problem{background:#ffe5e5;border-left:4px solid #d70015}
        li.warning{background:#fff4d6;border-left:4px solid #c77c02}li.info{background:#eef4ff;border-left:4px solid #0a60ff}
        code{font:12px ui-monospace,Menlo,monospace}table{border-collapse:collapse;width:100%;font-size:12.5px;margin:6px 0}
        th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top}th{color:#6e6e73;font-weight:600}
        td.accepted{color:#1a7f37}td.refused,td.dead{color:#d70015}td.superseded{color:#6e6e73}.life td{color:#0b3d2e;font-style:italic}
        form{display:flex;gap:8px;flex-wrap:wrap;margin-top:10px}input{padding:5px 8px;border-radius:5px;border:1px solid #ccc}
        button{padding:5px 12px;border-radius:5px;border:0;background:#30d158;color:#002b10;font-weight:600}
        """

    static func shell(title: String, header: String, body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(HTMLText.escape(title))</title><style>\(style)</style></head><body>
        <header><h1>\(HTMLText.escape(title))</h1>\(header)</header><main>\(body)</main></body></html>
        """
    }

    static func lookUpForm(user: String = "", device: String = "", match: String = "") -> String {
        """
        <form method="get" action="/admin/support/view">
        <input name="user" placeholder="user id" value="\(HTMLText.escape(user))" required>
        <input name="device" placeholder="device id (optional)" value="\(HTMLText.escape(device))">
        <input name="match" placeholder="match id (optional)" value="\(HTMLText.escape(match))">
        <button type="submit">Look up</button></form>
        """
    }

    /// The sign-in page: the admin's access token is kept in a cookie for `/admin/support` only (from the form, or from
    /// the link's fragment `#token=…&user=…`, which never reaches a server or a log), then the view opens.
    static func signIn() -> String {
        shell(title: "Sightscreen support", header: "<p>Sign in with an admin access token, then look up a user.</p>", body: """
            <section class="device"><form id="signin">
            <input id="token" type="password" placeholder="admin access token" autocomplete="off" required>
            <input id="user" placeholder="user id" required><input id="device" placeholder="device id (optional)">
            <input id="match" placeholder="match id (optional)"><button type="submit">Open</button></form></section>
            <script>
            (function () {
              function open(token, user, device, match) {
                var secure = location.protocol === 'https:' ? '; Secure' : '';
                document.cookie = '\(Authenticator.supportCookie)=' + encodeURIComponent(token) + '; Path=/admin/support; Max-Age=3600; SameSite=Strict' + secure;
                var query = 'user=' + encodeURIComponent(user);
                if (device) { query += '&device=' + encodeURIComponent(device); }
                if (match) { query += '&match=' + encodeURIComponent(match); }
                location.replace('/admin/support/view?' + query);
              }
              var hash = new URLSearchParams(location.hash.slice(1));
              if (hash.get('token') && hash.get('user')) {
                history.replaceState(null, '', location.pathname);
                open(hash.get('token'), hash.get('user'), hash.get('device'), hash.get('match'));
              }
              document.getElementById('signin').addEventListener('submit', function (event) {
                event.preventDefault();
                open(document.getElementById('token').value, document.getElementById('user').value,
                     document.getElementById('device').value, document.getElementById('match').value);
              });
            })();
            </script>
            """)
    }

    static func failure(_ error: HTTPError) -> String {
        let hint = error.status == 401 || error.status == 403 ? " <a href=\"/admin/support\">Sign in</a> with an admin token." : ""
        return shell(title: "Sightscreen support: \(error.status)", header: lookUpForm(),
                     body: "<section class=\"device\"><p><strong>\(HTMLText.escape(error.code))</strong>: \(HTMLText.escape(error.message)).\(hint)</p></section>")
    }

    static func report(_ report: SupportReport) -> String {
        let subject = [report.matchId.map { "match \($0)" }, "user \(report.userId)", report.deviceId.map { "device \($0)" }].compactMap { $0 }
            .joined(separator: " · ")
        let header = """
            <p>\(HTMLText.escape(subject)) — generated \(HTMLText.escape(report.generatedAt)); delivery record last written \
            \(HTMLText.escape(report.record.lastFoldAt ?? "never"))\(report.record.gaps > 0 ? ", \(report.record.gaps) gap(s)" : "")</p>
            \(lookUpForm(user: report.userId, device: report.deviceId ?? "", match: report.matchId ?? ""))
            """
        var body = ""
        let problems = report.summary
        if !problems.isEmpty {
            body += "<section class=\"device\"><h2>Why it may not have moved</h2><ul class=\"findings\">"
            body += problems.map { "<li class=\"warning\">\(HTMLText.escape($0))</li>" }.joined()
            body += "</ul></section>"
        }
        if report.devices.isEmpty { body += "<section class=\"device\"><p>No devices.</p></section>" }
        for device in report.devices { body += self.device(device) }
        return shell(title: "Delivery record: user \(report.userId)", header: header, body: body)
    }

    static func device(_ device: SupportReport.Device) -> String {
        var facts: [(String, String)] = [("registered", device.registered ? device.updatedAt ?? "yes" : "no (device deleted)")]
        if let env = device.apnsEnvironment { facts.append(("APNs", env)) }
        if let os = device.osVersion { facts.append(("iOS", os)) }
        if let app = device.appVersion { facts.append(("app", app)) }
        if let capable = device.channelCapable { facts.append(("broadcast channels", capable ? "capable" : "no")) }
        facts.append(("push token", device.pushToken ?? "none"))
        facts.append(("push-to-start token", device.pushToStartToken ?? "none"))
        var html = "<section class=\"device\"><h2>Device \(HTMLText.escape(device.deviceId))</h2>" + definitions(facts)
        if device.activities.isEmpty { html += "<p>No Live Activities.</p>" }
        for activity in device.activities { html += self.activity(activity) }
        return html + "</section>"
    }

    static func activity(_ activity: SupportReport.Activity) -> String {
        let match = activity.match
        var html = "<article><h3>Match \(HTMLText.escape(activity.matchId))\(match.title.map { " — " + HTMLText.escape($0) } ?? "") "
            + "(\(HTMLText.escape(match.status ?? "?"))\(match.isLive ? ", live" : ""))</h3>"
        if !activity.findings.isEmpty {
            html += "<ul class=\"findings\">" + activity.findings.map {
                "<li class=\"\($0.severity.rawValue)\"><code>\(HTMLText.escape($0.code.rawValue))</code> \(HTMLText.escape($0.message))</li>"
            }.joined() + "</ul>"
        }
        var facts: [(String, String)] = [("status", activity.status.map { $0 + (activity.endReason.map { " (\($0))" } ?? "") } ?? "no Live Activity")]
        if let delivery = activity.delivery {
            facts.append(("delivery", delivery + (activity.channelId.map { " " + $0 } ?? "") + (activity.channelState.map { " (\($0))" } ?? "")))
        }
        if let token = activity.updateToken { facts.append(("update token", token)) }
        if let totals = activity.totals {
            facts.append(("pushes", "\(totals.sent) sent · \(totals.accepted) accepted · \(totals.refused) refused · \(totals.dead) dead · "
                          + "\(totals.superseded) superseded · \(totals.retried) retries"))
        }
        if let totals = activity.channelTotals { facts.append(("channel broadcasts", "\(totals.accepted) accepted · \(totals.dead) dead")) }
        html += definitions(facts)
        html += "<table><thead><tr><th>time (UTC)</th><th>what</th><th>seq</th><th>result</th><th>APNs</th><th>content timestamp</th>"
            + "<th>freshness</th><th>tries</th><th>token</th><th>apns-id</th></tr></thead><tbody>"
        for row in timeline(activity) { html += row }
        return html + "</tbody></table></article>"
    }

    /// The life events and the recent deliveries, newest first.
    static func timeline(_ activity: SupportReport.Activity) -> [String] {
        var rows: [(at: String, html: String)] = []
        func life(_ at: String?, _ text: String) {
            guard let at else { return }
            rows.append((at, "<tr class=\"life\"><td>\(HTMLText.escape(at))</td><td colspan=\"9\">\(HTMLText.escape(text))</td></tr>"))
        }
        life(activity.followedAt, "followed the match")
        life(activity.startedAt, "Live Activity row created (first push-to-start)")
        life(activity.tokenRegisteredAt, "update token registered: active")
        life(activity.endedAt, "ended" + (activity.endReason.map { " (\($0))" } ?? ""))
        let older = [activity.lastFailure, activity.channelLastBroadcast].compactMap { $0 }.filter { entry in !activity.recent.contains(entry) }
        for entry in activity.recent + older {
            let at = ActivityDiagnosis.iso(entry.at ?? entry.finishedAt)
            let apns = [entry.status.map(String.init), entry.reason].compactMap { $0 }.joined(separator: " ")
            let what = HTMLText.escape(entry.kind.rawValue + (entry.trimStep != nil ? " (trimmed)" : ""))
            let freshness = entry.freshnessMs.map { String(format: "%.2f s", Double($0) / 1000) } ?? ""
            let timestamp = entry.timestamp.map(String.init) ?? ""
            var cells = "<td>\(HTMLText.escape(at))</td><td>\(what)</td><td>\(entry.seq)</td>"
            cells += "<td class=\"\(entry.result.rawValue)\">\(entry.result.rawValue)</td><td>\(HTMLText.escape(apns))</td>"
            cells += "<td>\(timestamp)</td><td>\(freshness)</td><td>\(entry.tries)</td>"
            cells += "<td><code>\(HTMLText.escape(entry.token))</code></td><td><code>\(HTMLText.escape(entry.apnsId ?? ""))</code></td>"
            rows.append((at, "<tr>" + cells + "</tr>"))
        }
        return rows.sorted { $0.at > $1.at }.map(\.html)
    }

    static func definitions(_ facts: [(String, String)]) -> String {
        "<dl>" + facts.map { "<dt>\(HTMLText.escape($0.0))</dt><dd>\(HTMLText.escape($0.1))</dd>" }.joined() + "</dl>"
    }
}
