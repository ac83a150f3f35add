import Contracts
import Foundation

/// `GET /preview?device=ID[&match=ID]`: a self-contained page showing one device's Live Activity
/// as iOS would — the Lock Screen card and the Dynamic Island (compact leading/trailing, minimal,
/// expanded) — from the content state that device last received. The server renders the current
/// values; the page then polls `/devices/:id` every second and re-renders in place. Element ids
/// are stable for tests and headless browsers: #lock-headline, #lock-detail, #lock-footer,
/// #compact-leading, #compact-trailing, #minimal, #expanded, #result-line, #match-phase (and
/// #activity-state, #match-title, #last-event, #device-id).
enum PreviewPage {
    /// The activity the page shows: the one of `matchId`, else the one with the newest content.
    static func pick(_ snapshot: DeviceSnapshot?, matchId: String?) -> ActivitySnapshot? {
        guard let activities = snapshot?.activities, !activities.isEmpty else { return nil }
        if let matchId, !matchId.isEmpty { return activities.first { $0.matchId == matchId } }
        return activities.max { ($0.timestamp, $0.matchId) < ($1.timestamp, $1.matchId) }
    }

    /// The text of each stable element for `activity` (nil: the device has nothing to show yet).
    static func texts(for activity: ActivitySnapshot?) -> [String: String] {
        guard let activity else {
            return [
                "lock-headline": "No Live Activity yet", "lock-detail": "", "lock-footer": "Waiting for a push…",
                "compact-leading": "", "compact-trailing": "", "minimal": "", "result-line": "", "match-phase": "",
                "activity-state": "none", "match-title": "",
            ]
        }
        let state = activity.contentState
        return [
            "lock-headline": state.lockScreen.headline,
            "lock-detail": state.lockScreen.detail,
            "lock-footer": state.lockScreen.footer,
            "compact-leading": "\(state.compactLeading.teamAbbr) \(state.compactLeading.score)",
            "compact-trailing": "\(state.compactTrailing.overs) · \(state.compactTrailing.runRate)",
            "minimal": state.minimal.text,
            "result-line": state.resultLine ?? "",
            "match-phase": state.matchDisplayState.rawValue,
            "activity-state": activity.state,
            "match-title": state.title,
        ]
    }

    /// The expanded Dynamic Island's lines for `activity`.
    static func expandedLines(for activity: ActivitySnapshot?) -> [String] {
        guard let expanded = activity?.contentState.expanded else { return [] }
        var lines = [
            "\(expanded.batting.abbr) \(expanded.batting.score) (\(expanded.batting.overs))",
            "\(expanded.bowling.abbr) \(expanded.bowling.score)\(expanded.bowling.overs.isEmpty ? "" : " (\(expanded.bowling.overs))")",
        ]
        for batter in expanded.batters { lines.append("\(batter.name)\(batter.onStrike ? "*" : "") \(batter.score)") }
        if let bowler = expanded.bowler { lines.append("\(bowler.name) \(bowler.figures)") }
        if !expanded.lastBalls.isEmpty { lines.append(expanded.lastBalls.joined(separator: " ")) }
        if let equation = expanded.equation { lines.append(equation) }
        lines.append([expanded.runRate, expanded.requiredRate].compactMap { $0 }.joined(separator: " · "))
        return lines
    }

    /// The whole page.
    static func render(deviceId: String, matchId: String?, snapshot: DeviceSnapshot?) -> String {
        let activity = pick(snapshot, matchId: matchId)
        let text = texts(for: activity)
        func value(_ id: String) -> String { escape(text[id] ?? "") }
        let expanded = expandedLines(for: activity).map { "<div class=\"line\">\(escape($0))</div>" }.joined()
        let phase = text["match-phase"] ?? ""
        let config = "{\"device\":\(jsonString(deviceId)),\"match\":\(matchId.map(jsonString) ?? "null")}"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sightscreen preview · \(escape(deviceId))</title>
            <style>\(PreviewAssets.css)</style></head>
            <body>
            <header><span id="device-id">\(escape(deviceId))</span> · <span id="match-title">\(value("match-title"))</span>
            · activity <span id="activity-state">\(value("activity-state"))</span>
            · last push <span id="last-event">\(escape(snapshot?.lastEvent ?? "none"))</span>
            · <span id="delivery-mode">\(escape(snapshot?.mode ?? "token"))</span></header>
            <section class="island">
              <h2>Dynamic Island</h2>
              <div class="pill compact"><div id="compact-leading">\(value("compact-leading"))</div><div class="cutout"></div><div id="compact-trailing">\(value("compact-trailing"))</div></div>
              <div class="pill minimal-wrap"><div id="minimal">\(value("minimal"))</div></div>
              <div class="pill expanded-wrap"><div id="expanded">\(expanded)</div></div>
            </section>
            <section class="lock">
              <h2>Lock Screen</h2>
              <div class="card">
                <div class="row"><span id="lock-headline">\(value("lock-headline"))</span><span id="match-phase" class="phase \(escape(phase))">\(escape(phase))</span></div>
                <div id="lock-detail">\(value("lock-detail"))</div>
                <div id="lock-footer">\(value("lock-footer"))</div>
                <div id="result-line">\(value("result-line"))</div>
              </div>
            </section>
            <footer id="status">live · refreshes every second</footer>
            <script>const PREVIEW = \(config);\n\(PreviewAssets.script)</script>
            </body></html>
            """
    }

    /// HTML text escaping (also safe inside attribute values).
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A JSON string literal that is also safe inside a <script> element.
    static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }
}
