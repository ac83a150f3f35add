import APNsMock
import MatchDayCheck
import Testing

/// A follow of a live match brings a start push to the user's devices within 30 s (`StartAfterFollowRule`).
@Suite struct StartAfterFollowRuleTests {
    static let t0: Int64 = 1_800_000_000_000

    static func start(_ token: String, match: String, at: Int64, sequence: Int) -> MockAPNsDelivery {
        MockAPNsDelivery(
            apnsID: "id-\(sequence)", token: token, topic: "t", pushType: "liveactivity", priority: 10, expiration: nil, collapseID: nil,
            payload: #"{"aps":{"event":"start","content-state":{"matchId":"\#(match)"}}}"#, receivedAt: at, connectionID: 1,
            sequence: sequence, channelId: nil, apsTimestamp: 1)
    }

    @Test("the first start of the match on any of the user's push-to-start tokens after the follow counts; late, missing or another match's is a violation")
    func startsWithinTheLimit() {
        let follows = [
            MatchDayAction(kind: .follow, device: "d2", match: "7", at: Self.t0, pushToStartTokens: ["p2", "p3"]),
            MatchDayAction(kind: .follow, device: "d4", match: "7", at: Self.t0, pushToStartTokens: ["p4"]),
            MatchDayAction(kind: .follow, device: "d6", match: "7", at: Self.t0, pushToStartTokens: ["p6"]),
            MatchDayAction(kind: .unfollow, device: "d8", match: "7", at: Self.t0, pushToStartTokens: ["p8"]),
        ]
        let deliveries = [
            Self.start("p3", match: "7", at: Self.t0 - 5_000, sequence: 1),   // before the follow: not its start
            Self.start("p3", match: "7", at: Self.t0 + 1_500, sequence: 2),   // d2's: 1.5 s
            Self.start("p2", match: "7", at: Self.t0 + 2_500, sequence: 3),
            Self.start("p4", match: "8", at: Self.t0 + 1_000, sequence: 4),   // another match
            Self.start("p4", match: "7", at: Self.t0 + 31_000, sequence: 5),  // d4's, too late
        ]
        let report = StartAfterFollowRule().check(actions: follows, deliveries: deliveries)
        #expect(report.latency == LatencyStats([1_500]))
        #expect(report.violations.map(\.rule) == [.startAfterFollow, .startAfterFollow])
        #expect(report.violations[0].detail.contains("d4") && report.violations[0].detail.contains("31000 ms later"))
        #expect(report.violations[1].detail.contains("d6") && report.violations[1].detail.contains("no start push came"))
    }
}
