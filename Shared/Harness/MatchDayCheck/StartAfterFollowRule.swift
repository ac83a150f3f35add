import APNsMock

/// A follow of a live match starts the Live Activity within `limit` (issue 42: the toss storm's followers each get their
/// push-to-start within 30 s): for every follow the driver logged, the first start push (`aps.event` "start") of that
/// match APNs accepted for a push-to-start token of the user's devices at or after the follow. The latencies are
/// reported; a follow with none within the limit is a violation.
public struct StartAfterFollowRule: Sendable {
    public var limitMilliseconds: Int64

    public init(limitMilliseconds: Int64 = 30_000) { self.limitMilliseconds = limitMilliseconds }

    public struct Report: Sendable, Equatable {
        public var violations: [MatchDayViolation]
        /// From the follow to APNs accepting its start push, per follow that got one.
        public var latency: LatencyStats
    }

    /// `actions` in any order (the driver logs only follows of a match still live).
    public func check(actions: [MatchDayAction], deliveries: [MockAPNsDelivery]) -> Report {
        var events = PayloadEvents()
        var starts: [String: [MockAPNsDelivery]] = [:]  // push-to-start token → its accepted start pushes, in order
        for delivery in deliveries.sorted(by: { ($0.sequence ?? 0) < ($1.sequence ?? 0) })
        where events.event(delivery.payload) == "start" {
            starts[delivery.token, default: []].append(delivery)
        }
        var violations: [MatchDayViolation] = []
        var latencies: [Int64] = []
        for action in actions where action.kind == .follow {
            let marker = #""matchId":"\#(action.match)""#
            let first = action.pushToStartTokens.compactMap { token in
                starts[token]?.first { $0.receivedAt >= action.at && $0.payload.contains(marker) }
            }.min { $0.receivedAt < $1.receivedAt }
            if let first, first.receivedAt - action.at <= limitMilliseconds {
                latencies.append(first.receivedAt - action.at)
            } else {
                violations.append(MatchDayViolation(
                    rule: .startAfterFollow, token: PushLogRules.mask(action.pushToStartTokens.first ?? ""),
                    sequences: first.flatMap(\.sequence).map { [$0] } ?? [],
                    detail: "\(action.device) followed \(action.match) at \(action.at) ms; "
                        + (first.map { "its start push came \($0.receivedAt - action.at) ms later" } ?? "no start push came")
                        + " (limit \(limitMilliseconds) ms)"))
            }
        }
        return Report(violations: violations, latency: LatencyStats(latencies))
    }
}
