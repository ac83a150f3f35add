@testable import API
import Contracts
import DeliveryRecord
import Foundation
import HTTPServer
import Operations
import Runtime
import SharedTestSupport
import Testing

/// The operator's view of a match (`GET /admin/matches/:matchId/status`, also `sightscreen match ID`): PostgreSQL's
/// rows of the match, and the per-match push figures and freshness from the delivery record (as two apns-sender replicas'
/// outcomes fold into it: the figures do not depend on which replica sent what, nor on restarts).
@Suite struct MatchReportTests {
    /// An outcome of `match` for `users`, each accepted `freshness` ms after the content was known (or refused / dead).
    static func outcome(_ match: String, job: String, users: [String], result: PushResult = .accepted, freshness: Int64 = 0,
                        priority: Int = 5) -> PushOutcome {
        let job = PushJob(jobId: job, kind: .liveActivityUpdate, matchId: match, stateSeq: 7, priority: priority, expiration: 0, relevanceScore: nil,
                          payload: #"{"aps":{"timestamp":1700000000}}"#,
                          targets: users.map { PushTarget(token: String(repeating: "ab", count: 32), env: .production, userId: $0, deviceId: "d1") },
                          createdAt: 1_700_000_000_000, knownAt: 1_700_000_000_000)
        return PushOutcome(job: job, contentTimestamp: 1_700_000_000, finishedAt: 1_700_000_000_000 + freshness, results: users.map {
            PushTargetResult(userId: $0, deviceId: "d1", token: "…abababab", result: result, status: result == .accepted ? 200 : 410,
                             reason: result == .accepted ? nil : "Unregistered", apnsId: nil, tries: 1, at: 1_700_000_000_000 + freshness)
        })
    }

    @Test("the report: followers, activities by status, reason and mode, the last event, channels, pushes and freshness from the delivery record")
    func reportOfAMatch() async throws {
        let match = APITestHarness.unique("final")
        let api = try await APITestHarness.make()
        defer { api.server.stopInBackground() }
        let db = api.database
        try await db.execute("INSERT INTO matches (match_id, status, is_live, card) VALUES ($1, '2nd Innings', true, '{\"title\":\"IND v SA\"}')", [match])
        try await db.execute(
            "INSERT INTO active_matches (match_id, seq, display_state, last_updated_at) VALUES ($1, 57, '{\"lockScreen\":{\"headline\":\"SA 120/4\"}}', '2026-12-02T10:00:00Z')",
            [match])
        for user in ["u1", "u2", "u3"] {
            try await db.execute("INSERT INTO match_follows (user_id, match_id) VALUES ($1, $2)", [user, match])
        }
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, update_token) VALUES ($1, 'u1', 'd1', 'active', 'aa')", [match])
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id) VALUES ($1, 'u2', 'd1', 'active', 'channel', 'Y2g=')", [match])
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ($1, 'u3', 'd1', 'ended', 'user_unfollow')", [match])
        try await db.execute(
            "INSERT INTO broadcast_channels (match_id, apns_env, channel_id, storage_policy, state, generation) VALUES ($1, 'production', 'Y2g=', 0, 'active', 2)",
            [match])
        // Two replicas' outcomes, folded in two batches (partitions 0 and 1), and another match's that must not count.
        let store = DeliveryRecordStore(database: db)
        let topic = Topic.pushOutcomes.name  // this test process's own schema: its offsets are its own
        let replicaA = [Self.outcome(match, job: "e1:0:0", users: ["u1", "u3"], freshness: 400),
                        Self.outcome(match, job: "e2:0:0", users: ["u1"], freshness: 900, priority: 10)]
        let replicaB = [Self.outcome(match, job: "e1:1:0", users: ["u4"], result: .refused),
                        Self.outcome(match, job: "e1:2:0", users: ["u5"], result: .dead),
                        Self.outcome("other", job: "x:0:0", users: ["u1"])]
        for (partition, outcomes) in [(Int32(0), replicaA), (1, replicaB)] {
            _ = try await store.record(topic: topic, batch: outcomes.enumerated().map {
                DeliveryRecordStore.Recorded(partition: partition, offset: Int64($0.offset), outcome: $0.element)
            })
        }

        #expect(try await api.call("GET", "/admin/matches/\(match)/status", as: APITestHarness.unique("u")).status == 403)
        let answer = try await api.call("GET", "/admin/matches/\(match)/status", as: APITestHarness.unique("root"), admin: true)
        #expect(answer.status == 200, "\(answer.text)")
        let report = try JSONDecoder().decode(MatchReport.self, from: Data(answer.body))
        #expect(report.title == "IND v SA" && report.isLive && report.followers == 3)
        #expect(report.activities.map { "\($0.status) \($0.endReason ?? "-") \($0.delivery) \($0.count)" }
                == ["active - channel 1", "active - token 1", "ended user_unfollow token 1"])
        #expect(report.lastEvent?.seq == 57 && report.lastEvent?.at == "2026-12-02T10:00:00Z" && report.lastEvent?.headline == "SA 120/4")
        #expect(report.channels.map { "\($0.environment) \($0.state) \($0.generation)" } == ["production active 2"])
        let pushes = try #require(report.pushes)
        #expect(pushes.accepted == 3 && pushes.refused == 1 && pushes.dead == 1, "both replicas' outcomes, the other match not counted: \(pushes)")
        #expect(pushes.recordRows == 4 && pushes.recordLastWrittenAt != nil && pushes.recordGaps == 0, "\(pushes)")
        // Each activity's latest update or key event: u1's key event (900 ms), u3's update (400 ms); u4, u5 none accepted.
        #expect(pushes.freshnessP50.map { abs($0 - 0.65) < 1e-9 } == true, "the median of 0.4 and 0.9: \(String(describing: pushes.freshnessP50))")
        #expect(pushes.freshnessP99.map { abs($0 - 0.895) < 1e-9 } == true, "\(String(describing: pushes.freshnessP99))")
        let text = report.text
        #expect(text.contains("followers: 3") && text.contains("activities active: 2 (channel 1, token 1)")
                && text.contains("ended: 1 (user_unfollow token 1)") && text.contains("pushes: 3 accepted, 1 refused, 1 dead"), "\(text)")
    }
}
