import APNsMock
import CricsheetReplay

/// Freshness as the devices saw it, independent of the services' own clocks (issue 42, B.5): for every push that moved a
/// Live Activity forward (its content shows a later ball than the last push to the same token or channel copy did), the
/// time from the fake feed first serving that ball (`ServedPosition`) to APNs accepting the push (mock-apns's
/// `receivedAt`). A token's first push is its baseline, not a sample (a device that follows mid-match is shown an old
/// ball, which says nothing about lag).
///
/// A sample is inside a fault when its interval, from served to accepted, overlaps a fault's window (the fault from its
/// start to `recoveryMilliseconds` after its end); outside otherwise — so a ball served just before a broker pause and
/// delivered after it counts as the fault's, not as lag of a healthy system.
public struct FreshnessCheck: Sendable {
    public var recoveryMilliseconds: Int64
    /// Width of a chart bucket, by the time a sample's ball was served.
    public var bucketMilliseconds: Int64

    public init(recoveryMilliseconds: Int64 = 10_000, bucketMilliseconds: Int64 = 5_000) {
        self.recoveryMilliseconds = recoveryMilliseconds
        self.bucketMilliseconds = max(1, bucketMilliseconds)
    }

    /// One chart bucket: samples whose ball was served in [start, start + width).
    public struct Bucket: Sendable, Equatable, Codable {
        public var start: Int64
        public var stats: LatencyStats
    }

    /// One match's figures.
    public struct Match: Sendable, Equatable, Codable {
        public var fixture: String
        public var outside: LatencyStats
        public var inside: LatencyStats
        /// Pushes of the match whose content named no ball the checker could find in the match file (or one served after
        /// the push arrived).
        public var unmapped: Int
        /// Deliveries the feed served (the highest position it reached).
        public var servedDeliveries: Int
        public var buckets: [Bucket]
    }

    /// Every match's figures, with the faults that set the windows.
    public struct Report: Sendable, Equatable, Codable {
        public var matches: [Match]
        public var faults: [MatchDayFault]
        public var recoveryMilliseconds: Int64
        public var bucketMilliseconds: Int64
        /// The run's first served position (Unix ms): the charts' zero.
        public var startedAt: Int64
    }

    /// Measures every match in `matches` (fixture id → its Cricsheet match) from the mock's accepted pushes and the feed's
    /// timeline.
    public func measure(
        deliveries: [MockAPNsDelivery], served: [ServedPosition], matches: [String: CricsheetMatch], faults: [MatchDayFault]
    ) -> Report {
        let windows = faults.map { $0.window(margin: recoveryMilliseconds) }
        let servedByFixture = Dictionary(grouping: served) { String($0.fixture) }
        var firstServed: [String: [Int64?]] = [:]
        var indexes: [String: ScoreIndex] = [:]
        for (fixture, match) in matches {
            let index = ScoreIndex(match: match)
            indexes[fixture] = index
            firstServed[fixture] = Self.firstServed(servedByFixture[fixture] ?? [], total: index.total)
        }
        var samples: [String: [(servedAt: Int64, lag: Int64, inside: Bool)]] = [:]
        var unmapped: [String: Int] = [:]
        var shown = ShownScores()
        // The newest ball each stream (token, or a channel's copies to one subscriber) was shown, per match.
        var newest: [String: Int] = [:]
        for delivery in deliveries.sorted(by: { ($0.sequence ?? 0) < ($1.sequence ?? 0) }) {
            guard let content = shown.shown(delivery.payload), let index = indexes[content.matchId],
                  let served = firstServed[content.matchId] else { continue }
            let candidates = index.deliveries(showing: content.score).compactMap { ball in
                served[ball].flatMap { $0 <= delivery.receivedAt ? (ball: ball, at: $0) : nil }
            }
            guard let ball = candidates.max(by: { $0.at < $1.at }) else {
                unmapped[content.matchId, default: 0] += 1
                continue
            }
            let stream = delivery.token + "|" + (delivery.channelId ?? "") + "|" + content.matchId
            let previous = newest[stream]
            guard previous.map({ ball.ball > $0 }) ?? true else { continue }
            newest[stream] = ball.ball
            guard previous != nil else { continue }
            let interval = ball.at...max(ball.at, delivery.receivedAt)
            let inside = windows.contains { $0.overlaps(interval) }
            samples[content.matchId, default: []].append((ball.at, delivery.receivedAt - ball.at, inside))
        }
        let startedAt = served.map(\.servedAt).min() ?? 0
        let reports = matches.keys.sorted().map { fixture -> Match in
            let all = samples[fixture] ?? []
            var buckets: [Int64: [Int64]] = [:]
            for sample in all {
                let offset = sample.servedAt - startedAt
                buckets[startedAt + (offset / bucketMilliseconds) * bucketMilliseconds, default: []].append(sample.lag)
            }
            return Match(
                fixture: fixture, outside: LatencyStats(all.filter { !$0.inside }.map(\.lag)), inside: LatencyStats(all.filter(\.inside).map(\.lag)),
                unmapped: unmapped[fixture] ?? 0,
                servedDeliveries: servedByFixture[fixture]?.map(\.deliveries).max() ?? 0,
                buckets: buckets.keys.sorted().map { Bucket(start: $0, stats: LatencyStats(buckets[$0]!)) })
        }
        return Report(matches: reports, faults: faults, recoveryMilliseconds: recoveryMilliseconds,
                      bucketMilliseconds: bucketMilliseconds, startedAt: startedAt)
    }

    /// When each ball (1…total) was first on the feed: the earliest served position showing at least that many
    /// deliveries. Index 0 is unused.
    static func firstServed(_ positions: [ServedPosition], total: Int) -> [Int64?] {
        var first = [Int64?](repeating: nil, count: total + 1)
        var reached = 0
        for position in positions.sorted(by: { $0.servedAt < $1.servedAt }) {
            let upTo = min(total, position.deliveries)
            if upTo > reached {
                for ball in (reached + 1)...upTo { first[ball] = position.servedAt }
                reached = upTo
            }
        }
        return first
    }
}
