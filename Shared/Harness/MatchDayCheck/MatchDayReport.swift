import Foundation

/// The checker's verdict on a `MatchDayRecord`: the push-log rules over every token (`PushLogRules`, the faults' windows
/// — from 1 s before each fault to 30 s after it — excusing replays of one request), a start within 30 s of every follow of a live match (`StartAfterFollowRule`) and
/// freshness per match inside and outside the faults (`FreshnessCheck`), written as
/// `report.txt`, `report.json` and `freshness.svg`.
public struct MatchDayReport: Sendable {
    public var pushLog: PushLogRules.Report
    public var freshness: FreshnessCheck.Report
    public var starts: StartAfterFollowRule.Report

    /// How long after a fault a replayed request is still excused (a restarted member re-reads what its group had not
    /// committed), in milliseconds.
    public static let replayMargin: Int64 = 30_000
    /// How long before a fault a replayed request's first copy may have been accepted (issue 42's crash rule, B.4): what
    /// APNs accepted in the last commit interval before a kill -9 or a broker pause is not committed, nor its done mark
    /// written, so it is read and sent again.
    public static let replayLead: Int64 = 1_000

    /// Checks `record`.
    public static func check(_ record: MatchDayRecord, freshness: FreshnessCheck = FreshnessCheck()) throws(MatchDayRecord.ReadError)
        -> MatchDayReport
    {
        let rules = PushLogRules(excused: record.faults.map { $0.window(margin: replayMargin, lead: replayLead) })
        return MatchDayReport(
            pushLog: rules.check(deliveries: record.deliveries, refusals: record.refusals),
            freshness: freshness.measure(deliveries: record.deliveries, served: record.served,
                                         matches: try record.cricsheetMatches(), faults: record.faults),
            starts: StartAfterFollowRule().check(actions: record.actions, deliveries: record.deliveries))
    }

    public var violations: [MatchDayViolation] { pushLog.violations + starts.violations }

    /// The text report: the rules' counts and first 20 violations, freshness per match, the faults.
    public var text: String {
        var lines = ["match-day check: \(violations.count) violation(s)",
                     "push log: \(pushLog.tokens) tokens, \(pushLog.accepted) accepted, \(pushLog.refused) refused, "
                         + "\(pushLog.excusedDuplicates) replays excused by a fault"]
        for rule in MatchDayViolation.Rule.allCases {
            let count = violations.filter { $0.rule == rule }.count
            if count > 0 { lines.append("  \(rule.rawValue): \(count)") }
        }
        lines += violations.prefix(20).map { "  " + $0.description }
        lines.append("starts after a follow of a live match: \(starts.latency.count) within the limit, p50 \(FreshnessChart.seconds(starts.latency.p50)) "
            + "max \(FreshnessChart.seconds(starts.latency.max)); \(starts.violations.count) late or missing")
        lines.append("freshness (feed served the ball → APNs accepted the push; faults' windows end \(freshness.recoveryMilliseconds / 1000) s after them):")
        for match in freshness.matches {
            lines.append("  match \(match.fixture): outside faults p50 \(FreshnessChart.seconds(match.outside.p50)) p99 \(FreshnessChart.seconds(match.outside.p99)) "
                + "max \(FreshnessChart.seconds(match.outside.max)) n \(match.outside.count); inside p50 \(FreshnessChart.seconds(match.inside.p50)) "
                + "p99 \(FreshnessChart.seconds(match.inside.p99)) max \(FreshnessChart.seconds(match.inside.max)) n \(match.inside.count); "
                + "unmapped \(match.unmapped); \(match.servedDeliveries) deliveries served")
        }
        lines.append("faults: \(freshness.faults.count)")
        for fault in freshness.faults {
            lines.append("  \(fault.kind) at +\(String(format: "%.1f", Double(fault.start - freshness.startedAt) / 1000)) s for \(String(format: "%.1f", Double(fault.end - fault.start) / 1000)) s")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The machine-readable report.
    public struct Summary: Codable, Sendable {
        public var violations: [String]
        public var tokens: Int
        public var accepted: Int
        public var refused: Int
        public var excusedReplays: Int
        public var startsAfterFollow: LatencyStats
        public var freshness: FreshnessCheck.Report
    }

    public var summary: Summary {
        Summary(violations: violations.map(\.description), tokens: pushLog.tokens, accepted: pushLog.accepted,
                refused: pushLog.refused, excusedReplays: pushLog.excusedDuplicates, startsAfterFollow: starts.latency,
                freshness: freshness)
    }

    /// Writes report.txt, report.json and freshness.svg into `directory`.
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("report.txt"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(summary).write(to: directory.appendingPathComponent("report.json"))
        try Data(FreshnessChart.svg(freshness).utf8).write(to: directory.appendingPathComponent("freshness.svg"))
    }
}
