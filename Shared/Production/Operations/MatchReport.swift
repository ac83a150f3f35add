import Foundation
import Runtime

/// What an on-call person asks about one match during a final, in one answer: who follows it, where its Live
/// Activities stand, the last event, its broadcast channels, what APNs did with its pushes, how fresh they were,
/// and whether the pipeline is keeping up. Built by `MatchReportReader`; printed by `sightscreen match ID`, served
/// as JSON by the api's `GET /admin/matches/:matchId/status`.
public struct MatchReport: Codable, Sendable, Equatable {
    /// Live Activity rows of one status, end reason and delivery mode.
    public struct ActivityCount: Codable, Sendable, Equatable {
        public var status: String
        public var endReason: String?
        public var delivery: String
        public var count: Int
    }

    /// The detector's latest event (`active_matches`).
    public struct LastEvent: Codable, Sendable, Equatable {
        public var seq: Int64
        /// ISO 8601.
        public var at: String
        public var headline: String?
        public var resultLine: String?
    }

    /// One broadcast channel of the match.
    public struct Channel: Codable, Sendable, Equatable {
        public var environment: String
        public var state: String
        public var generation: Int
    }

    /// Pushes of this match by final APNs answer, from the delivery record (`push_deliveries`, summed over the match's
    /// activities and channels: a broadcast counts once), so the figures hold with any number of apns-sender replicas and
    /// across restarts; and the freshness (poll that saw the content → APNs accepted) of each activity's latest update or
    /// key event, p50 and p99.
    public struct Pushes: Codable, Sendable, Equatable {
        public var accepted: Int
        public var refused: Int
        public var dead: Int
        public var superseded: Int
        public var retried: Int
        public var freshnessP50: Double?
        public var freshnessP99: Double?
        /// Rows of the record (activities and channels with at least one push).
        public var recordRows: Int
        /// When the delivery recorder last wrote (ISO 8601), and how many gaps the record has.
        public var recordLastWrittenAt: String?
        public var recordGaps: Int
    }

    public var matchId: String
    public var title: String?
    public var status: String?
    public var isLive: Bool
    public var followers: Int
    public var activities: [ActivityCount]
    public var lastEvent: LastEvent?
    public var channels: [Channel]
    public var pushes: Pushes?
    public var lag: [ConsumerGroupLag]
    /// Why lag could not be read, else nil.
    public var lagError: String?

    /// The report as the CLI prints it.
    public var text: String {
        var lines = ["match \(matchId)" + (title.map { " — \($0)" } ?? "") + " (\(status ?? "not in the schedule")\(isLive ? ", live" : ""))"]
        lines.append("  followers: \(followers)")
        let byStatus = Dictionary(grouping: activities, by: \.status)
        for status in byStatus.keys.sorted() {
            let rows = byStatus[status]!
            let total = rows.reduce(0) { $0 + $1.count }
            let detail = rows.sorted { ($0.endReason ?? "", $0.delivery) < ($1.endReason ?? "", $1.delivery) }
                .map { "\($0.endReason.map { "\($0) " } ?? "")\($0.delivery) \($0.count)" }.joined(separator: ", ")
            lines.append("  activities \(status): \(total) (\(detail))")
        }
        if activities.isEmpty { lines.append("  activities: none") }
        if let event = lastEvent {
            lines.append("  last event: seq \(event.seq) at \(event.at)" + (event.headline.map { " — \($0)" } ?? "")
                         + (event.resultLine.map { " — \($0)" } ?? ""))
        } else {
            lines.append("  last event: none")
        }
        for channel in channels { lines.append("  channel \(channel.environment): \(channel.state) (generation \(channel.generation))") }
        if let pushes {
            let fresh = pushes.freshnessP50.map { p50 in
                "freshness p50 \(SecondsText.of(p50)) p99 \(pushes.freshnessP99.map(SecondsText.of) ?? "-")"
            } ?? "freshness -"
            lines.append("  pushes: \(pushes.accepted) accepted, \(pushes.refused) refused, \(pushes.dead) dead, \(pushes.superseded) superseded, "
                         + "\(pushes.retried) retries; \(fresh) (delivery record: \(pushes.recordRows) rows, last written "
                         + "\(pushes.recordLastWrittenAt ?? "never")\(pushes.recordGaps > 0 ? ", \(pushes.recordGaps) gap(s)" : ""))")
        } else {
            lines.append("  pushes: the delivery record could not be read")
        }
        if let lagError { lines.append("  lag: unavailable (\(lagError))") }
        for entry in lag { lines.append("  lag \(entry.group) \(entry.topic): \(entry.lag)") }
        return lines.joined(separator: "\n")
    }
}
