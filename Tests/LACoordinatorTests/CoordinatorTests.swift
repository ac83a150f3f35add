import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import Testing
@testable import LACoordinator

/// The whole service over real topics (start the servers with scripts/stack servers).
@Suite("la-coordinator service")
struct CoordinatorTests {
    @Test("latest-wins over queued events: older plain updates dropped, the key event and the newest kept; bad message skipped; offsets committed; token-invalid loop ends a row")
    func latestWinsAndTokenInvalid() async throws {
        let database = try await TestSupport.database()
        let eventsTopic = try await TestSupport.topic("la-events", partitions: 1)
        let jobsTopic = try await TestSupport.topic("la-jobs-svc")
        let invalidTopic = try await TestSupport.topic("la-invalid", partitions: 1)
        let matchId = TestSupport.unique("lw")
        try await TestSupport.insertActive(database, matchId: matchId, users: 5)

        // Queue everything before the service starts, so it arrives as one batch.
        let producer = try TestSupport.producer()
        var events = [
            TestSupport.event(matchId: matchId, seq: 1), TestSupport.event(matchId: matchId, seq: 2, key: TestSupport.wicket),
            TestSupport.event(matchId: matchId, seq: 3), TestSupport.event(matchId: matchId, seq: 4),
        ].map { try! MessageCodec.encode($0) }
        events.insert(Array("garbage".utf8), at: 2)
        for value in events { _ = try await producer.send(topic: eventsTopic, key: Array(matchId.utf8), value: value) }
        let victim = try await database.query(
            "SELECT update_token FROM live_activities WHERE match_id = $1 AND user_id = 'u3' AND device_id = 'd1'", [matchId])
        let victimToken = try #require(victim.first).decode(0, as: String.self)
        _ = try await producer.send(topic: invalidTopic, key: Array(matchId.utf8), value: try MessageCodec.encode(
            TokenInvalid(token: victimToken, tokenKind: .update, matchId: matchId, userId: "u3", deviceId: "d1", reason: "Unregistered",
                         apnsTimestamp: nil)))

        var configuration = try await TestSupport.configuration()
        configuration.eventsTopic = eventsTopic
        configuration.tokenInvalidTopic = invalidTopic
        configuration.deadLetterTopic = try await TestSupport.topic("la-dead-letter", partitions: 1)
        configuration.eventsGroup = TestSupport.unique("la-events-group")
        configuration.tokenInvalidGroup = TestSupport.unique("la-invalid-group")
        configuration.fanOut.topic = jobsTopic
        configuration.coalesceWait = .milliseconds(1500)
        configuration.infrastructure.kafkaStatisticsInterval = .seconds(1)
        configuration.plainUpdates.maximumHold = .zero  // no apns-sender here: the overload rule is the next test's
        let registry = MetricsRegistry()
        let coordinator = try Coordinator(configuration: configuration, database: database, logger: TestSupport.quiet, registry: registry)
        let running = TestSupport.run(coordinator)

        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in Set(jobs.map(\.job.stateSeq)).isSuperset(of: [2, 4]) }
        #expect(Set(read.map(\.job.stateSeq)) == [2, 4], "seq 1 and 3 were coalesced away")
        #expect(read.filter { $0.job.stateSeq == 2 }.allSatisfy { $0.job.priority == 10 })
        // The token-invalid loop runs in parallel, so the victim's row may already be ended by then.
        let newest = read.filter { $0.job.stateSeq == 4 }.flatMap(\.job.targets).map(\.token)
        #expect(Set(newest.filter { $0 != victimToken }).count == 14 && newest.count == Set(newest).count)

        // The token-invalid loop ended exactly that row.
        let deadline = ContinuousClock.now + .seconds(60)
        var status = ""
        while ContinuousClock.now < deadline {
            status = try await database.query(
                "SELECT status FROM live_activities WHERE match_id = $1 AND user_id = 'u3' AND device_id = 'd1'", [matchId])
                .first!.decode(0, as: String.self)
            if status == "ended" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(status == "ended")

        // Every offset of the batch (5 messages) committed once the jobs were acknowledged.
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestSupport.brokers), logger: TestSupport.quiet)
        var committed: Int64?
        while ContinuousClock.now < deadline {
            committed = try await admin.committedOffsets(group: configuration.eventsGroup, topics: [eventsTopic])
                .first { $0.key.partition == 0 }?.value
            if committed == 5 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(committed == 5)
        let metrics = registry.render()
        #expect(metrics.contains("la_events_coalesced_total 2"))
        #expect(metrics.contains(#"la_bad_messages_total{kind="malformed_json",topic="\#(eventsTopic)"} 1"#))
        #expect(metrics.contains(#"la_events_processed_total{kind="key"} 1"#) && metrics.contains(#"la_events_processed_total{kind="update"} 1"#))
        #expect(metrics.contains("la_fanout_seconds_count 2"))

        running.cancel()
        _ = try? await running.value
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("overload rule: while apns-sender's group has not committed past a key event's jobs, plain updates wait and the newest replaces the older; once it has, the newest goes, and an older one never does")
    func plainUpdatesWaitForTheSender() async throws {
        let database = try await TestSupport.database()
        let eventsTopic = try await TestSupport.topic("la-gate-events", partitions: 1)
        let jobsTopic = try await TestSupport.topic("la-gate-jobs")
        let matchId = TestSupport.unique("gate")
        try await TestSupport.insertActive(database, matchId: matchId, users: 4)
        var configuration = try await TestSupport.configuration()
        configuration.eventsTopic = eventsTopic
        configuration.tokenInvalidTopic = try await TestSupport.topic("la-gate-invalid", partitions: 1)
        configuration.deadLetterTopic = try await TestSupport.topic("la-gate-dead-letter", partitions: 1)
        configuration.eventsGroup = TestSupport.unique("la-gate-group")
        configuration.tokenInvalidGroup = TestSupport.unique("la-gate-invalid-group")
        configuration.fanOut.topic = jobsTopic
        configuration.senderGroup = TestSupport.unique("la-gate-sender")  // this test plays apns-sender's group
        configuration.plainUpdates = .init(minimumSpacing: .milliseconds(200), maximumHold: .seconds(600))
        let registry = MetricsRegistry()
        let coordinator = try Coordinator(configuration: configuration, database: database, logger: TestSupport.quiet, registry: registry)
        let running = TestSupport.run(coordinator)
        let producer = try TestSupport.producer()
        func send(_ event: MatchBusEvent) async throws {
            _ = try await producer.send(topic: eventsTopic, key: Array(matchId.utf8), value: try MessageCodec.encode(event))
        }
        func metric(_ line: String) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if registry.render().contains(line) { return true }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        // The key event goes at once.
        try await send(TestSupport.event(matchId: matchId, seq: 1, key: TestSupport.wicket))
        let first = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in jobs.flatMap(\.job.targets).count == 12 }
        #expect(Set(first.map(\.job.stateSeq)) == [1])
        // Two plain updates while "apns-sender" has committed nothing: held, the second replacing the first.
        try await send(TestSupport.event(matchId: matchId, seq: 2))
        #expect(await metric("la_updates_held_total 1"))
        try await send(TestSupport.event(matchId: matchId, seq: 3))
        #expect(await metric(#"la_updates_superseded_total{priority="5"} 1"#))
        #expect(registry.render().contains("la_updates_held 1"))
        // The events offset stays before the held update (2 of 3 messages done: next offset 2 at most).
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestSupport.brokers), logger: TestSupport.quiet)
        let eventsCommitted = try await admin.committedOffsets(group: configuration.eventsGroup, topics: [eventsTopic]).values.first ?? 0
        #expect(eventsCommitted <= 2)

        // "apns-sender" reads every job of seq 1 and commits: the newest plain update goes.
        let sender = try TestSupport.consumer(topic: jobsTopic, group: configuration.senderGroup)
        var seen = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while seen < first.count, ContinuousClock.now < deadline {
            if let message = try await sender.poll(timeout: .milliseconds(200)) {
                seen += 1
                try await sender.commit(message)
            }
        }
        #expect(seen == first.count)
        let all = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in jobs.contains { $0.job.stateSeq == 3 } }
        // Jobs of one key are in one partition in the order produced: a seq 2 job would precede seq 3's.
        #expect(Set(all.map(\.job.stateSeq)) == [1, 3], "seq 2 was replaced while held")
        #expect(all.filter { $0.job.stateSeq == 3 }.flatMap(\.job.targets).count == 12)
        #expect(await metric("la_update_hold_seconds_count 1"))
        #expect(await metric("la_updates_held 0"))

        try? await sender.close()
        running.cancel()
        _ = try? await running.value
        try await producer.shutdown()
        await database.shutdown()
    }

    @Test("configuration: defaults, environment values, and a clear error naming a bad variable")
    func configuration() throws {
        let defaults = try CoordinatorConfiguration(EnvironmentReader([:]))
        #expect(defaults.eventsGroup == "la-coordinator" && defaults.tokenInvalidGroup == "la-coordinator-token-invalid")
        #expect(defaults.fanOut.shards == PushSharding.defaultShards && defaults.fanOut.topic == Topic.pushJobs.name)
        #expect(defaults.eventsTopic == Topic.matchEvents.name && defaults.tokenInvalidTopic == Topic.tokenInvalid.name)
        let custom = try CoordinatorConfiguration(EnvironmentReader([
            "PUSH_SHARDS": "16", "PUSH_EXPIRATION_SECONDS": "30", "END_PUSH_EXPIRATION_SECONDS": "7200", "LA_COALESCE_WAIT_MS": "5",
        ]))
        #expect(custom.fanOut.shards == 16 && custom.policy.updateExpiration == 30 && custom.policy.endExpiration == 7200)
        #expect(custom.coalesceWait == .milliseconds(5))
        #expect(defaults.plainUpdates == .init(minimumSpacing: .seconds(1), maximumHold: .seconds(30)) && defaults.senderGroup == "apns-sender")
        let gate = try CoordinatorConfiguration(EnvironmentReader([
            "LA_PLAIN_UPDATE_SPACING_MS": "2500", "LA_PLAIN_UPDATE_MAX_HOLD_MS": "0", "LA_SENDER_GROUP": "sender-blue",
        ]))
        #expect(gate.plainUpdates == .init(minimumSpacing: .milliseconds(2500), maximumHold: .zero) && gate.senderGroup == "sender-blue")
        #expect(throws: ConfigurationError.self) { try CoordinatorConfiguration(EnvironmentReader(["LA_PLAIN_UPDATE_MAX_HOLD_MS": "-1"])) }
        #expect(throws: ConfigurationError.self) { try CoordinatorConfiguration(EnvironmentReader(["PUSH_SHARDS": "0"])) }
        let topics = try CoordinatorConfiguration(EnvironmentReader([
            "LA_EVENTS_TOPIC": "bench.events", "LA_JOBS_TOPIC": "bench.jobs", "LA_TOKEN_INVALID_TOPIC": "bench.invalid",
            "LA_DEAD_LETTER_TOPIC": "bench.dead-letter",
        ]))
        #expect([topics.eventsTopic, topics.fanOut.topic, topics.tokenInvalidTopic, topics.deadLetterTopic]
            == ["bench.events", "bench.jobs", "bench.invalid", "bench.dead-letter"])
        #expect(throws: ConfigurationError.invalid(variable: "LA_EVENTS_TOPIC", value: "match events", expected: "a topic name without spaces")) {
            try CoordinatorConfiguration(EnvironmentReader(["LA_EVENTS_TOPIC": "match events"]))
        }
    }
}
