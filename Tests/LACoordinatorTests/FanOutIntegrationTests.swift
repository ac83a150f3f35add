import BroadcastChannels
import Contracts
import PushComposition
import FanOut
import Foundation
import Kafka
import Postgres
import Runtime
import Testing
@testable import LACoordinator
import SharedTestSupport

/// Fan-out against the real PostgreSQL and Kafka (start them with scripts/stack servers).
@Suite("fan-out with PostgreSQL and Kafka")
struct FanOutIntegrationTests {
    @Test("a match with active channels: one broadcast job per environment with the token jobs' exact payload; token rows fanned out as before")
    func broadcastPerEnvironmentBesideTheTokens() async throws {
        let database = try await TestSupport.database()
        let jobsTopic = try await TestSupport.topic("la-bc-jobs")
        let producer = try TestSupport.producer()
        let matchId = TestSupport.unique("bc")
        try await TestSupport.insertActive(database, matchId: matchId, users: 4)
        // A channel activity holds no update token: it is not a token target.
        try await database.execute(
            "INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES ($1, 'channel-user', 'd0', 'active')", [matchId])
        let store = BroadcastChannelStore(database: database)
        for (environment, id) in [(APNsEnvironment.sandbox, "U0FOREJPWA=="), (.production, "UFJPRA==")] {
            let generation = try #require(try await store.beginCreate(matchId: matchId, environment: environment, storagePolicy: 0, now: Date()))
            #expect(try await store.activate(matchId: matchId, environment: environment, generation: generation, channelId: id,
                                             now: Date()))
        }
        let executor = FanOutExecutor(database: database, producer: producer, settings: FanOutSettings(topic: jobsTopic, shards: 4),
                                      clock: ManualWallClock())
        let plan = try EventPushPlan(event: TestSupport.event(matchId: matchId, seq: 7, key: TestSupport.wicket), policy: PushPolicy())
        let result = try await executor.fanOut(plan)
        #expect(result.broadcasts == 2 && result.targets == 12)
        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in
            jobs.filter { $0.job.channel != nil }.count >= 2 && jobs.reduce(0) { $0 + $1.job.targets.count } >= 12
        }
        let broadcasts = read.filter { $0.job.channel != nil }
        #expect(broadcasts.count == 2, "one per environment")
        #expect(Set(broadcasts.map(\.key)) == ["\(matchId):bc:sandbox", "\(matchId):bc:production"])
        #expect(Set(broadcasts.map(\.job.jobId)) == ["\(matchId):7:bc:sandbox:1", "\(matchId):7:bc:production:1"])
        let tokenJob = try #require(read.first { $0.job.channel == nil }?.job)
        for entry in broadcasts {
            #expect(entry.job.targets.isEmpty && entry.job.schema == 3 && entry.job.priority == 10)
            #expect(entry.job.payload == tokenJob.payload, "one body on both paths")
            #expect(entry.job.stateSeq == tokenJob.stateSeq && entry.job.expiration == tokenJob.expiration)
        }
        #expect(read.filter { $0.job.channel == nil }.flatMap(\.job.targets).count == 12)
        // Once the channel is invalid (APNs lost it), the event goes to the tokens alone.
        _ = try await store.markInvalid(channelId: "U0FOREJPWA==", reason: "ChannelNotRegistered", now: Date())
        #expect(try await executor.fanOut(plan).broadcasts == 1)
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("10,002 active rows (3 devices per user): each active token exactly once, pending/ended/other matches never; jobs ≤ 1,000 keyed by their shard; replay is identical")
    func everyActiveTokenOnce() async throws {
        let database = try await TestSupport.database()
        let jobsTopic = try await TestSupport.topic("la-jobs")
        let producer = try TestSupport.producer()
        let matchId = TestSupport.unique("m")
        try await TestSupport.insertActive(database, matchId: matchId, users: 3_334)
        // Pending and ended rows of the same match, with tokens, and active rows of another match.
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, end_reason)
            SELECT $1, 'p' || i, 'd0', CASE WHEN i % 2 = 0 THEN 'pending' ELSE 'ended' END, 'dead' || md5(i::text),
                   CASE WHEN i % 2 = 0 THEN NULL ELSE 'user_unfollow' END
            FROM generate_series(0, 499) AS i
            """, [matchId])
        try await TestSupport.insertActive(database, matchId: matchId + "-other", users: 50, userPrefix: "o")
        let expected = Set(try await database.query(
            "SELECT update_token FROM live_activities WHERE match_id = $1 AND status = 'active'", [matchId]).map { try $0.decode(0, as: String.self) })
        #expect(expected.count == 10_002)
        let sandboxUsers = Set((0..<3_334).filter { $0 % 10 == 0 }.map { "u\($0)" })

        let shards = 4
        let executor = FanOutExecutor(database: database, producer: producer,
                                      settings: FanOutSettings(topic: jobsTopic, shards: shards, fetchRows: 700, maximumInFlight: 3),
                                      clock: ManualWallClock())
        let plan = try EventPushPlan(event: TestSupport.event(matchId: matchId, seq: 42, key: TestSupport.wicket), policy: PushPolicy())
        let first = try await executor.fanOut(plan)
        #expect(first.targets == 10_002)

        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { $0.reduce(0) { $0 + $1.job.targets.count } >= 10_002 }
        #expect(read.count == first.jobs)
        let tokens = read.flatMap { $0.job.targets.map(\.token) }
        #expect(tokens.count == 10_002, "every active token exactly once")
        #expect(Set(tokens) == expected, "exactly the active tokens of this match")
        // Pending/ended rows carry 36-character "dead…" tokens; an active token is 160 hex characters and
        // may itself start with "dead" (1 in 65,536), so compare against the exact set.
        let inactive = Set(try await database.query(
            "SELECT update_token FROM live_activities WHERE match_id = $1 AND status <> 'active'", [matchId]).map { try $0.decode(0, as: String.self) })
        #expect(inactive.count == 500 && Set(tokens).isDisjoint(with: inactive))
        for entry in read {
            let job = entry.job
            #expect(job.targets.count <= PushJob.maximumTargets && !job.targets.isEmpty)
            let parts = entry.key.split(separator: ":")
            let shard = Int(parts.last ?? "") ?? -1
            #expect(entry.key == "\(matchId):\(shard)")
            #expect(job.targets.allSatisfy { PushSharding.shard(token: $0.token, shards: shards) == shard })
            #expect(job.jobId.hasPrefix("\(matchId):42:\(shard):"))
            #expect(job.kind == .liveActivityUpdate && job.priority == 10 && job.payload == plan.payload && job.stateSeq == 42)
            #expect(job.targets.allSatisfy { $0.env == (sandboxUsers.contains($0.userId) ? .sandbox : .production) })
        }
        #expect(Set(read.map(\.job.jobId)).count == read.count)
        // 3 devices of one user: all three get the push.
        #expect(read.flatMap(\.job.targets).filter { $0.userId == "u7" }.count == 3)
        // More than one chunk in a shard: chunks of 1,000 were cut.
        #expect(read.contains { $0.job.targets.count == PushJob.maximumTargets })

        // Replay: the same jobs (ids, payloads, targets) again.
        let replay = try await executor.fanOut(plan)
        #expect(replay.jobs == first.jobs && replay.targets == first.targets)
        let both = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) {
            $0.reduce(0) { $0 + $1.job.targets.count } >= 20_004
        }
        #expect(both.count == 2 * first.jobs)
        let byId = Dictionary(grouping: both, by: \.job.jobId)
        #expect(byId.count == first.jobs)
        for (_, copies) in byId {
            #expect(copies.count == 2)
            if copies.count == 2 {
                #expect(copies[0].job == copies[1].job && copies[0].key == copies[1].key)
                #expect(PushJobEncoder.encode(copies[0].job) == PushJobEncoder.encode(copies[1].job))
            }
        }
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("a day's close handled after play resumed (a lagging or redelivered event) is skipped: the new day's activities stay")
    func lateCloseOfPlayIsSkipped() async throws {
        let database = try await TestSupport.database()
        let producer = try TestSupport.producer()
        let matchId = TestSupport.unique("late-stumps")
        try await TestSupport.insertActive(database, matchId: matchId, users: 2)
        try await database.execute("INSERT INTO matches (match_id, status, is_live, close_of_play) VALUES ($1, '3rd Innings', true, false)",
                                   [matchId])
        let registry = MetricsRegistry()
        let processor = TestSupport.processor(database: database, producer: producer, jobsTopic: try await TestSupport.topic("la-jobs-late"),
                                              registry: registry)
        try await processor.handle(TestSupport.event(matchId: matchId, seq: 40, key: KeyEvent(kind: .stumps, priority: 5, alert: nil),
                                                     phase: .interrupted))
        #expect(registry.render().contains(#"la_events_processed_total{kind="day_end_late"} 1"#))
        let active = try await database.query("SELECT count(*)::int AS n FROM live_activities WHERE match_id = $1 AND status = 'active'", [matchId])
        #expect(try active.first?.decode("n", as: Int.self) == 6, "the new day's rows are untouched")
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("match end and a day's close: end pushes with a dismissal-date to every active row, then every row of the match ended (match_end, day_end)",
          arguments: [false, true])
    func matchEnd(closeOfPlay: Bool) async throws {
        let database = try await TestSupport.database()
        let jobsTopic = try await TestSupport.topic("la-jobs-end")
        let producer = try TestSupport.producer()
        let matchId = TestSupport.unique("end")
        try await TestSupport.insertActive(database, matchId: matchId, users: 10)
        try await database.execute(
            "INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES ($1, 'pending-user', 'd0', 'pending')", [matchId])
        // At stumps a token_invalid row is ended for the day too (a fresh budget tomorrow); at the match's end a
        // row waiting for the next day is ended for good.
        try await database.execute(
            "INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ($1, 'waiting-user', 'd0', 'ended', $2)",
            [matchId, closeOfPlay ? "token_invalid" : "day_end"])
        try await database.execute("INSERT INTO matches (match_id, status, is_live, close_of_play) VALUES ($1, $2, true, $3)",
                                   [matchId, closeOfPlay ? "Stump Day 1" : "Finished", closeOfPlay])
        try await TestSupport.insertActive(database, matchId: matchId + "-other", users: 2)
        let registry = MetricsRegistry()
        let processor = TestSupport.processor(database: database, producer: producer, jobsTopic: jobsTopic, registry: registry)

        let end = closeOfPlay
            ? TestSupport.event(matchId: matchId, seq: 99, key: KeyEvent(kind: .stumps, priority: 5, alert: nil), phase: .interrupted)
            : TestSupport.event(matchId: matchId, seq: 99, key: KeyEvent(kind: .result, priority: 10, alert: Alert(title: "India won", body: "by 5 wickets")),
                                phase: .ended)
        let reason = closeOfPlay ? "day_end" : "match_end"
        let dismissAfter = closeOfPlay ? PushPolicy().closeOfPlayDismissAfter : PushPolicy().dismissAfter
        try await processor.handle(end)
        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { $0.reduce(0) { $0 + $1.job.targets.count } >= 30 }
        #expect(read.flatMap(\.job.targets).count == 30)
        for entry in read {
            #expect(entry.job.kind == .liveActivityEnd && entry.job.priority == 10)
            let aps = (try JSONSerialization.jsonObject(with: Data(entry.job.payload.utf8)) as! [String: Any])["aps"] as! [String: Any]
            #expect(aps["event"] as? String == "end")
            #expect(aps["dismissal-date"] as? Int64 == end.emittedAt / 1000 + dismissAfter)
            #expect(aps["alert"] == nil || !closeOfPlay, "close of play is silent")
        }
        let rows = try await database.query("SELECT status, end_reason, count(*)::int AS n FROM live_activities WHERE match_id = $1 GROUP BY 1, 2", [matchId])
        #expect(rows.count == 1)
        #expect(try rows.first?.decode("status", as: String.self) == "ended")
        #expect(try rows.first?.decode("end_reason", as: String?.self) == reason)
        #expect(try rows.first?.decode("n", as: Int.self) == 32)
        let other = try await database.query("SELECT count(*)::int AS n FROM live_activities WHERE match_id = $1 AND status = 'active'", [matchId + "-other"])
        #expect(try other.first?.decode("n", as: Int.self) == 6)
        #expect(registry.render().contains("la_rows_ended_total{reason=\"\(reason)\"} 32"))

        // A replayed end event: same end jobs, no more rows to end.
        try await processor.handle(end)
        #expect(registry.render().contains("la_rows_ended_total{reason=\"\(reason)\"} 32"))
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("events of one snapshot in separate batches: the key event is pushed, a plain update with the same state and time is not, the next snapshot is")
    func repeatedPlainUpdateIsNotPushed() async throws {
        let database = try await TestSupport.database()
        let jobsTopic = try await TestSupport.topic("la-jobs-repeat")
        let producer = try TestSupport.producer()
        let matchId = TestSupport.unique("rep")
        try await TestSupport.insertActive(database, matchId: matchId, users: 2)
        let registry = MetricsRegistry()
        let processor = TestSupport.processor(database: database, producer: producer, jobsTopic: jobsTopic, registry: registry)
        let fifty = TestSupport.event(matchId: matchId, seq: 1, key: KeyEvent(kind: .fifty, priority: 10, alert: Alert(title: "Fifty", body: "Kohli 50 (31)")))
        var four = TestSupport.event(matchId: matchId, seq: 2, key: KeyEvent(kind: .four, priority: 5, alert: nil))
        four.displayState = fifty.displayState
        four.emittedAt = fifty.emittedAt
        let next = TestSupport.event(matchId: matchId, seq: 3)
        var offset: Int64 = 0
        func message(_ event: MatchBusEvent) throws -> KafkaMessage {
            offset += 1
            return KafkaMessage(topic: "events", partition: 0, offset: offset, key: Array(matchId.utf8), value: try MessageCodec.encode(event),
                                headers: [], timestamp: nil)
        }
        // The overload rule off (a hold bound of 0): this test is about repeats, every event goes at once.
        var gate = PlainUpdateGate(settings: .init(maximumHold: .zero))
        for event in [fifty, four, next] {
            let committed = try await processor.process([try message(event)], gate: &gate)
            #expect(committed.values.first == offset + 1, "every message is committed, a skipped one too")
        }
        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in Set(jobs.map(\.job.stateSeq)).isSuperset(of: [1, 3]) }
        #expect(Set(read.map(\.job.stateSeq)) == [1, 3], "seq 2 carried the state and time seq 1 had already pushed")
        #expect(read.filter { $0.job.stateSeq == 1 }.flatMap(\.job.targets).count == 6)
        #expect(registry.render().contains("la_events_repeated_total 1"))
        try await producer.shutdown()
        await database.shutdown()
    }
}
