import Contracts
import FakeFeed
import FeedHistory
import Foundation
import Kafka
@testable import LACoordinator
import Matches
import Postgres
@testable import Poller
import Runtime
import ServerTestSupport
import SharedTestSupport
import Testing

/// The poller and la-coordinator's orchestrator together: a match the poller sees go live gets its followers'
/// push-to-starts from the next orchestrator pass.
@Suite struct GoesLiveStartsTests {
    @Test func followersOfAnUpcomingMatchGetOneStartJobPerDeviceWhenItGoesLive() async throws {
        let (database, schema) = try await PollerTestSupport.database()
        let producer = try PollerTestSupport.producer()
        let offset = PollerTestSupport.uniqueOffset()
        let id = 1144504 + offset, matchId = String(1144504 + offset)
        let fake = try FakeSportMonks(ids: [1144504], configuration: .init(upcomingDays: 1, idOffset: offset))
        defer { fake.stop() }
        let metrics = PollerMetrics(registry: MetricsRegistry())
        let store = MatchStore(database: database)
        _ = try await ScheduleSync(client: fake.client, store: store, include: "localteam,visitorteam,league,venue,runs",
                                   windowDays: 3, clock: fake.clock, metrics: metrics, logger: PollerTestSupport.logger).syncOnce()
        try await FollowerRows.device(database, user: "u1", device: "d1", pushToStart: FollowerRows.token(1))
        try await FollowerRows.device(database, user: "u1", device: "d2", pushToStart: FollowerRows.token(2))
        try await FollowerRows.device(database, user: "u2", device: "d3", pushToStart: FollowerRows.token(3))
        try await FollowerRows.device(database, user: "u2", device: "d4", pushToStart: nil)
        try await FollowerRows.device(database, user: "u3", device: "d5", pushToStart: FollowerRows.token(5))
        try await FollowerRows.follow(database, user: "u1", match: matchId)
        try await FollowerRows.follow(database, user: "u2", match: matchId)
        let orchestrator = MatchOrchestrator(
            database: database, producer: producer, settings: { var s = MatchOrchestrator.Settings(); s.jobsTopic = PollerTestSupport.jobsTopic; return s }(),
            clock: fake.clock, metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: PollerTestSupport.logger)
        #expect(try await orchestrator.runOnce() == .init(), "upcoming: nobody is started")

        // The match goes live on the feed; the poller sees it and marks it live.
        try fake.feed.start(id)
        fake.clock.advance(by: 12)
        let poller = FeedPoller(client: fake.client, store: store, history: FeedBallStore(database: database), publisher: PollerTestSupport.publisher(producer),
                                include: "localteam,visitorteam,league,venue,runs", clock: fake.clock, metrics: metrics,
                                logger: PollerTestSupport.logger)
        #expect(try await poller.pollOnce().published == 1)
        #expect(try await store.liveMatchIds().contains(matchId))

        #expect(try await orchestrator.runOnce().started == 3, "d1, d2, d3: followers' devices with a push-to-start token")
        #expect(try await orchestrator.runOnce() == .init(), "running again adds nothing")
        let restarted = MatchOrchestrator(
            database: database, producer: producer, settings: { var s = MatchOrchestrator.Settings(); s.jobsTopic = PollerTestSupport.jobsTopic; return s }(),
            clock: fake.clock, metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: PollerTestSupport.logger)
        #expect(try await restarted.runOnce() == .init(), "a restarted process (startup recovery) adds nothing")

        let rows = try await database.query(
            "SELECT device_id, status, start_attempts FROM live_activities WHERE match_id = $1 ORDER BY device_id", [matchId])
        #expect(try rows.map { try $0.decode("device_id", as: String.self) } == ["d1", "d2", "d3"])
        #expect(try rows.allSatisfy { try $0.decode("status", as: String.self) == "pending" && $0.decode("start_attempts", as: Int.self) == 1 })

        let jobs = try await PollerTestSupport.jobs(matchId: matchId, expected: 3)
        #expect(jobs.count == 3, "exactly one job per device")
        #expect(Set(jobs.map { $0.job.targets.map(\.deviceId) }) == [["d1"], ["d2"], ["d3"]])
        let card = try #require(try await database.query("SELECT card FROM matches WHERE match_id = $1", [matchId]).first)
            .decode("card", as: PostgresJSON.self).decode(MatchCard.self)
        for (key, job) in jobs {
            #expect(job.kind == .liveActivityStart && job.priority == 10)
            let target = try #require(job.targets.first)
            #expect(target.env == .sandbox)
            #expect(key == PushJob.key(matchId: matchId, shard: PushSharding.shard(token: target.token, shards: PushSharding.defaultShards)))
            #expect(job.jobId == "start:\(matchId):\(target.userId):\(target.deviceId):1")
            let payload = try JSONDecoder().decode(JSONValue.self, from: Data(job.payload.utf8))
            let aps = try #require(payload["aps"])
            #expect(aps["event"] == .string("start"))
            #expect(aps["attributes-type"] == .string(MatchActivityAttributes.typeName))
            #expect(aps["attributes"]?["matchId"] == .string(matchId))
            #expect(aps["attributes"]?["title"] == .string(card.title))
            #expect(aps["alert"]?["title"] == .string(card.title))
            #expect(aps["content-state"]?["matchId"] == .string(matchId))
            #expect(aps["content-state"]?["matchDisplayState"] == .string("live"))
            if case .int = aps["timestamp"] {} else { Issue.record("timestamp is not a number") }
            #expect(job.payload.utf8.count < 4096)
        }
        try await producer.shutdown()
        await PollerTestSupport.dropSchema(schema, database)
    }
}
