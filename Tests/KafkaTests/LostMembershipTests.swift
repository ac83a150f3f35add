import Foundation
import Kafka
import Runtime
import Synchronization
import Testing

/// Issue 22: a consumer whose group membership is lost while it works (the broker expired its
/// session during a stall) must rejoin and finish every record, not retry a doomed commit forever.
/// Each test runs its own Tansu (`PrivateBroker`), so pausing it disturbs no other test.
@Suite(.timeLimit(.minutes(3))) struct LostMembershipTests {
    static let logger = KafkaTestSupport.logger

    static func consumerConfiguration(_ broker: PrivateBroker, group: String, topic: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: broker.bootstrapServers, clientId: KafkaTestSupport.unique("lost"),
                                                       groupId: group, topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        return configuration
    }

    static func producer(_ broker: PrivateBroker, messageTimeout: Duration = .seconds(60)) throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(bootstrapServers: broker.bootstrapServers, clientId: KafkaTestSupport.unique("lost-producer"))
        configuration.messageTimeout = messageTimeout
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    static func admin(_ broker: PrivateBroker) throws -> KafkaAdmin {
        try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: broker.bootstrapServers, clientId: "lost-admin"),
                       logger: Logger(label: "lost-admin", minimumLevel: .error, sink: LogSink { _ in }))
    }

    /// A fresh 2-partition topic holding records `m<first>`…, keyed `k0`, `k1`, …;
    /// returns the topic and the values.
    static func topic(admin: KafkaAdmin, producer: KafkaProducer, prefix: String) async throws -> (String, [String]) {
        let topic = KafkaTestSupport.unique(prefix)
        try await admin.createTopics([KafkaTopicSpec(name: topic, partitions: 2)], timeout: .seconds(10))
        return (topic, try await produce(20, from: 0, to: topic, producer))
    }

    /// Produces `count` records `m<first>`… to `topic`; returns their values.
    static func produce(_ count: Int, from first: Int, to topic: String, _ producer: KafkaProducer) async throws -> [String] {
        let values = (first..<first + count).map { "m\($0)" }
        for (index, value) in values.enumerated() {
            _ = try await producer.send(topic: topic, key: "k\(index)", value: Array(value.utf8))
        }
        return values
    }

    /// Waits (bounded, 90 s) until every one of `values` was handled and the group's committed
    /// offsets add up to their count — the positive signal that nothing is left; the offsets, or
    /// empty after the deadline.
    static func waitUntilCommitted(_ values: [String], handled: () -> [String], admin: KafkaAdmin, group: String,
                                   topic: String) async throws -> [KafkaTopicPartition: Int64] {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if Set(handled()).isSuperset(of: values),
               let offsets = try? await admin.committedOffsets(group: group, topics: [topic], timeout: .seconds(15)),
               offsets.values.reduce(0, +) == Int64(values.count) {
                return offsets
            }
            try await Task.sleep(for: .milliseconds(300))
        }
        return [:]
    }

    /// The broker is paused for 10 s (session timeout 6 s) while the member handles its 5th record.
    /// The member's membership is gone when the broker comes back; the loop must drop what it holds,
    /// rejoin, and finish all 20 records, committing them all.
    @Test func aMemberWhoseSessionExpiresWhileItWorksRejoinsAndFinishesEveryRecord() async throws {
        let broker = try await PrivateBroker.start()
        defer { broker.stop() }
        let admin = try Self.admin(broker)
        let producer = try Self.producer(broker)
        let (topic, expected) = try await Self.topic(admin: admin, producer: producer, prefix: "lost")
        let group = KafkaTestSupport.unique("lost-group")
        let registry = MetricsRegistry()
        let consumer = try KafkaConsumer(configuration: Self.consumerConfiguration(broker, group: group, topic: topic),
                                         logger: Self.logger, metrics: registry)
        let handled = LockedValue<[String]>([])
        let paused = LockedValue(false)
        let trigger = GracefulShutdownTrigger()
        let loop = Task {
            try await GracefulShutdown.$trigger.withValue(trigger) {
                try await CommitAfterHandleLoop(consumer: consumer).run(logger: Self.logger, failed: { _, _ in }, handle: { message in
                    let count = handled.withLock { handled in
                        handled.append(String(decoding: message.value, as: UTF8.self))
                        return handled.count
                    }
                    guard count == 5, paused.withLock({ let first = !$0; $0 = true; return first }) else { return }
                    broker.pause()
                    try await Task.sleep(for: .seconds(10))
                    broker.resume()
                })
            }
        }
        let committed = try await Self.waitUntilCommitted(expected, handled: { handled.withLock { $0 } }, admin: admin, group: group,
                                                          topic: topic)
        trigger.trigger()
        try await loop.value
        try await consumer.close()
        try? await producer.shutdown(timeout: .seconds(5))

        let all = handled.withLock { $0 }
        #expect(Set(all) == Set(expected), "every record handled; missing: \(Set(expected).subtracting(all).sorted())")
        #expect(committed.values.reduce(0, +) == Int64(expected.count), "every record committed: \(committed)")
        let lost = registry.counter("kafka_consumer_assignment_lost_total", help: "", labels: ["group": group]).count
        let rejoined = registry.counter("kafka_consumer_rejoined_total", help: "", labels: ["group": group]).count
        #expect(lost >= 1, "the member saw its assignment lost")
        #expect(rejoined >= 1, "the member rejoined the group after the loss")
        // At-least-once: only records not committed at the loss may be handled twice.
        #expect(all.count - expected.count <= expected.count, "duplicates \(all.count - expected.count)")
        Self.logger.warning("lost membership figures", ["handled": String(all.count), "lost": String(lost), "rejoined": String(rejoined)])
    }

    /// `checkBroker` (the readiness probe) fails while the broker is paused and succeeds once it is back.
    @Test func theBrokerProbeFailsWhileTheBrokerIsPausedAndRecovers() async throws {
        let broker = try await PrivateBroker.start()
        defer { broker.stop() }
        let producer = try Self.producer(broker)
        try await producer.checkBroker(timeout: .seconds(2))
        broker.pause()
        let started = ContinuousClock.now
        await #expect(throws: KafkaError.self) { try await producer.checkBroker(timeout: .seconds(1)) }
        #expect(ContinuousClock.now - started < .seconds(10), "the probe gives up at its timeout")
        broker.resume()
        let deadline = ContinuousClock.now + .seconds(30)
        var reachable = false
        while !reachable, ContinuousClock.now < deadline {
            reachable = (try? await producer.checkBroker(timeout: .seconds(2))) != nil
        }
        #expect(reachable, "the probe succeeds again after the broker resumed")
        try? await producer.shutdown(timeout: .seconds(5))
    }

    /// A message the broker cannot take within the producer's delivery timeout is reported as failed
    /// (never silently lost), and the producer works again when the broker is back. (On Tansu the
    /// idempotent instance is fenced after the timeout — every later produce failed PRODUCER_FENCED
    /// until the producer learnt to replace its instance.)
    @Test func aProduceDuringAStallLongerThanTheDeliveryTimeoutIsReportedAndTheProducerRecovers() async throws {
        let broker = try await PrivateBroker.start()
        defer { broker.stop() }
        let admin = try Self.admin(broker)
        let topic = KafkaTestSupport.unique("stall")
        try await admin.createTopics([KafkaTopicSpec(name: topic, partitions: 1)], timeout: .seconds(10))
        let registry = MetricsRegistry()
        var configuration = KafkaProducerConfiguration(bootstrapServers: broker.bootstrapServers, clientId: KafkaTestSupport.unique("stall-producer"))
        configuration.messageTimeout = .seconds(3)
        let producer = try KafkaProducer(configuration: configuration, logger: Self.logger, metrics: registry)
        _ = try await producer.send(topic: topic, key: "k", value: Array("before".utf8))
        broker.pause()
        let failure = await #expect(throws: KafkaError.self) {
            try await producer.send(topic: topic, key: "k", value: Array("during".utf8))
        }
        #expect(failure?.isRetriable == true, "a delivery timeout is retriable: \(String(describing: failure))")
        broker.resume()
        let deadline = ContinuousClock.now + .seconds(30)
        var delivered = false
        while !delivered, ContinuousClock.now < deadline {
            do {
                _ = try await producer.send(topic: topic, key: "k", value: Array("after".utf8))
                delivered = true
            } catch {
                Self.logger.warning("send after the stall failed", ["error": "\(error)"])
                try await Task.sleep(for: .milliseconds(500))
            }
        }
        #expect(delivered, "the producer delivers again after the broker resumed")
        #expect(registry.counter("kafka_producer_recreated_total", help: "", labels: ["client": configuration.clientId]).count >= 1,
                "the fenced instance was replaced")
        try? await producer.shutdown(timeout: .seconds(5))
        let consumer = try KafkaConsumer(configuration: Self.consumerConfiguration(broker, group: KafkaTestSupport.unique("stall-read"), topic: topic),
                                         logger: Self.logger)
        var values: [String] = []
        let readDeadline = ContinuousClock.now + .seconds(30)
        while !values.contains("after"), ContinuousClock.now < readDeadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) { values.append(String(decoding: message.value, as: UTF8.self)) }
        }
        #expect(values.first == "before" && values.contains("after"), "what was acknowledged is in the topic: \(values)")
        try await consumer.close()
    }

    @Test func membershipErrorsMeanTheAssignmentIsLostAndOthersDoNot() {
        for code: Int32 in [25, 22, 27, 82, 110, 113, -142] {
            #expect(KafkaError(code: code, name: "x", message: "", operation: "commit").meansAssignmentLost, "code \(code)")
        }
        for code: Int32 in [-185, -195, 7, 15, 16, 0] {
            #expect(!KafkaError(code: code, name: "x", message: "", operation: "commit").meansAssignmentLost, "code \(code)")
        }
    }
}

/// The other way to lose a membership: a member whose handler runs past `max.poll.interval.ms`
/// (a slow or stalled process) is taken out of the group by librdkafka; the other member takes its
/// partitions and redoes its in-flight record; the slow member's commit is refused, it drops the
/// record, rejoins, and the two finish every record between them.
@Suite(.timeLimit(.minutes(3))) struct SlowMemberTests {
    @Test func aMemberStalledPastThePollIntervalIsReplacedAndRejoins() async throws {
        let broker = try await PrivateBroker.start()
        defer { broker.stop() }
        let admin = try LostMembershipTests.admin(broker)
        let producer = try LostMembershipTests.producer(broker)
        let (topic, expected) = try await LostMembershipTests.topic(admin: admin, producer: producer, prefix: "slow")
        let group = KafkaTestSupport.unique("slow-group")
        var configuration = LostMembershipTests.consumerConfiguration(broker, group: group, topic: topic)
        configuration.additional["max.poll.interval.ms"] = "7000"
        let registry = MetricsRegistry()
        let slow = try KafkaConsumer(configuration: configuration, logger: LostMembershipTests.logger, metrics: registry)
        let other = try KafkaConsumer(configuration: configuration, logger: LostMembershipTests.logger, metrics: MetricsRegistry())
        let handled = LockedValue<[(member: String, value: String)]>([])
        let stalled = LockedValue(false)
        let trigger = GracefulShutdownTrigger()
        let handler: @Sendable (String, KafkaMessage) async throws -> Void = { member, message in
            handled.withLock { $0.append((member, String(decoding: message.value, as: UTF8.self))) }
            guard member == "slow", stalled.withLock({ let first = !$0; $0 = true; return first }) else { return }
            try await Task.sleep(for: .seconds(12))  // no poll for longer than max.poll.interval.ms
        }
        var loops: [Task<Void, any Error>] = []
        for (consumer, member) in [(slow, "slow"), (other, "other")] {
            loops.append(Task {
                try await GracefulShutdown.$trigger.withValue(trigger) {
                    try await CommitAfterHandleLoop(consumer: consumer).run(logger: LostMembershipTests.logger, failed: { _, _ in }, handle: { message in
                        try await handler(member, message)
                    })
                }
            })
        }
        // Positive signals: the first 20 records committed (by the other member), then — after the
        // slow member has rejoined — 20 more, split between the two.
        let values: () -> [String] = { handled.withLock { $0.map(\.value) } }
        _ = try await LostMembershipTests.waitUntilCommitted(expected, handled: values, admin: admin, group: group, topic: topic)
        let rejoinDeadline = ContinuousClock.now + .seconds(60)
        while registry.counter("kafka_consumer_rejoined_total", help: "", labels: ["group": group]).count == 0 || slow.assignment.isEmpty,
              ContinuousClock.now < rejoinDeadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let more = try await LostMembershipTests.produce(20, from: 20, to: topic, producer)
        let committed = try await LostMembershipTests.waitUntilCommitted(expected + more, handled: values, admin: admin, group: group,
                                                                         topic: topic)
        trigger.trigger()
        for task in loops { try await task.value }
        try await slow.close()
        try await other.close()
        try? await producer.shutdown(timeout: .seconds(5))

        let all = handled.withLock { $0 }
        #expect(Set(all.map(\.value)) == Set(expected + more), "every record handled")
        #expect(committed.values.reduce(0, +) == Int64(expected.count + more.count), "every record committed: \(committed)")
        #expect(all.contains { $0.member == "other" && expected.contains($0.value) }, "the other member took over the slow one's work")
        #expect(all.contains { $0.member == "slow" && more.contains($0.value) }, "the slow member rejoined and worked again")
        #expect(stalled.withLock { $0 }, "the slow member stalled")
        let lost = registry.counter("kafka_consumer_assignment_lost_total", help: "", labels: ["group": group]).count
        let dropped = registry.counter("kafka_consumer_work_dropped_total", help: "", labels: ["group": group]).count
        let refused = registry.render().contains("kafka_consumer_commit_failures_total")
        #expect(lost >= 1 || dropped >= 1 || refused, "the slow member noticed it had lost its assignment")
        LostMembershipTests.logger.warning("slow member figures", [
            "handled": String(all.count), "byOther": String(all.filter { $0.member == "other" }.count),
            "bySlowAfterRejoin": String(all.filter { $0.member == "slow" && more.contains($0.value) }.count), "lost": String(lost),
            "dropped": String(dropped),
        ])
    }
}
