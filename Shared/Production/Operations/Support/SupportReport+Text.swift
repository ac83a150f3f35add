import Runtime
import DeliveryRecord

extension SupportReport {
    /// The report as the CLI prints it: one block per device, one per activity, its findings, then its deliveries.
    public var text: String {
        var lines = ["\(scope.rawValue) \(userId)\(deviceId.map { " / \($0)" } ?? "")\(matchId.map { " / match \($0)" } ?? "") at \(generatedAt)"]
        lines.append("  delivery record: last written \(record.lastFoldAt ?? "never")\(record.gaps > 0 ? ", \(record.gaps) gap(s)" : "")")
        if devices.isEmpty { lines.append("  no devices") }
        for device in devices {
            var facts = [device.registered ? "registered \(device.updatedAt ?? "?")" : "not registered (deleted)"]
            if let env = device.apnsEnvironment { facts.append(env) }
            if let os = device.osVersion { facts.append("iOS \(os)") }
            if let app = device.appVersion { facts.append("app \(app)") }
            if device.channelCapable == true { facts.append("channel-capable") }
            facts.append("push token \(device.pushToken ?? "none")")
            facts.append("push-to-start token \(device.pushToStartToken ?? "none")")
            lines.append("  device \(device.deviceId): " + facts.joined(separator: ", "))
            if device.activities.isEmpty { lines.append("    no Live Activities") }
            for activity in device.activities {
                let match = activity.match
                lines.append("    match \(activity.matchId)\(match.title.map { " — \($0)" } ?? "") (\(match.status ?? "?")\(match.isLive ? ", live" : ""))")
                var life: [String] = []
                if let followed = activity.followedAt { life.append("followed \(followed)") }
                if let status = activity.status {
                    life.append("\(status)\(activity.endReason.map { " (\($0))" } ?? "")")
                    life.append("\(activity.delivery ?? "token")\(activity.channelId.map { " \($0)" } ?? "")\(activity.channelState.map { " \($0)" } ?? "")")
                    if let started = activity.startedAt { life.append("first start \(started)") }
                    if let attempts = activity.startAttempts { life.append("\(attempts) start(s)") }
                    if let registered = activity.tokenRegisteredAt { life.append("update token \(activity.updateToken ?? "") at \(registered)") }
                    if let ended = activity.endedAt { life.append("ended \(ended)") }
                } else {
                    life.append("no Live Activity")
                }
                lines.append("      " + life.joined(separator: "; "))
                for finding in activity.findings { lines.append("      \(finding.severity.rawValue.uppercased()) \(finding.code.rawValue): \(finding.message)") }
                if let totals = activity.totals {
                    lines.append("      pushes: \(totals.sent) sent, \(totals.accepted) accepted, \(totals.refused) refused, \(totals.dead) dead, "
                                 + "\(totals.superseded) superseded, \(totals.retried) retries")
                }
                for (name, entry) in [("start", activity.lastStart), ("update", activity.lastUpdate), ("key event", activity.lastKeyEvent),
                                      ("end", activity.lastEnd), ("failure", activity.lastFailure), ("broadcast", activity.channelLastBroadcast)] {
                    guard let entry else { continue }
                    lines.append("      last \(name): \(Self.line(entry))")
                }
                if !activity.recent.isEmpty {
                    lines.append("      recent:")
                    for entry in activity.recent { lines.append("        \(entry.kind.rawValue) \(Self.line(entry))") }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func line(_ entry: DeliveryEntry) -> String {
        var parts = ["seq \(entry.seq)", entry.result.rawValue]
        if let status = entry.status { parts.append("\(status)\(entry.reason.map { " \($0)" } ?? "")") } else if let reason = entry.reason { parts.append(reason) }
        parts.append("at \(ActivityDiagnosis.iso(entry.at ?? entry.finishedAt))")
        if let timestamp = entry.timestamp { parts.append("timestamp \(timestamp)") }
        if let freshness = entry.freshnessMs { parts.append("fresh \(SecondsText.of(Double(freshness) / 1000))") }
        if entry.tries > 1 { parts.append("\(entry.tries) tries") }
        parts.append("token \(entry.token)")
        if let apnsId = entry.apnsId { parts.append("apns-id \(apnsId)") }
        return parts.joined(separator: ", ")
    }
}
