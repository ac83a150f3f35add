import Kafka
import Runtime
import ServerTestSupport
import ServiceKit
import Synchronization
import Testing

/// `KafkaConsumerService`'s commit policies against the real broker (scripts/stack servers): a batch handler's floor
/// holds commits back until it lets go, and out-of-order work is committed only up to the first unfinished message.
@Suite(.timeLimit(.minutes(2))) struct KafkaConsumerServiceTests {
    static let logger = TestServers.quietLogger("consumer-service-tests")

    /// Holds back the message at `holdOffset` (its partition's commits stop there) until `finish()`.
    struct HoldingHandler: KafkaBatchHandler {
        let holdOffset: Int64
        let processed: AsyncCondition<Int>
        var held: [KafkaTopicPartition: Int64] = [:]

        var pollTimeout: Duration { .milliseconds(100) }
        var commitFloor: [KafkaTopicPartition: Int64] { held }
        mutating func idle(stillOwned: () throws -> Void) async throws {}
        mutating func process(_ batch: [KafkaMessage], stillOwned: () throws -> Void) async throws -> [KafkaTopicPartition: Int64] {
            var next: [KafkaTopicPartition: Int64] = [:]
            for message in batch {
                next[message.topicPartition] = max(next[message.topicPartition] ?? 0, message.offset + 1)
                if message.offset == holdOffset { held[message.topicPartition] = message.offset }
            }
            processed.update { $0 += batch.count }
            return next
        }
        mutating func keepOnly(_ owned: Set<KafkaTopicPartition>) { held = held.filter { owned.contains($0.key) } }
        mutating func finish() async { held = [:] }
    }

    /// Keeps what it is given; the test finishes it in the tracker.
    final class Collecting: KafkaIntakeHandler {
        let accepted = AsyncCondition<[KafkaMessage]>([])
        var hasRoom: Bool { true }
        func waitForRoom(timeout: Duration) async {}
        func accept(_ message: KafkaMessage) { accepted.update { $0.append(message) } }
        func caughtUp() {}
    }

    private func produce(_ count: Int, to topic: String) async throws {
        let producer = try TestServers.producer(clientPrefix: "consumer-service", logger: Self.logger)
        for index in 0..<count { _ = try await producer.send(topic: topic, key: Array("k".utf8), value: Array("\(index)".utf8)) }
        try await producer.shutdown()
    }

    /// The group's committed next offset on partition 0 (-1: none).
    private func committed(_ group: String, _ topic: String) async throws -> Int64 {
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestServers.brokers), logger: Self.logger)
        return try await admin.committedOffsets(group: group, topics: [topic]).first { $0.key.partition == 0 }?.value ?? -1
    }

    private func waitForCommitted(_ expected: Int64, _ group: String, _ topic: String) async throws -> Int64 {
        let deadline = ContinuousClock.now + .seconds(30)
        var value: Int64 = -1
        while ContinuousClock.now < deadline {
            value = try await committed(group, topic)
            if value == expected { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return value
    }

    private func group(_ service: KafkaConsumerService, _ consumer: KafkaConsumer) -> ServiceGroup {
        ServiceGroup(services: [ResourceService("consumer") { try? await consumer.close() }, service],
                     signal: ShutdownSignal(signals: []), logger: Self.logger, grace: .seconds(10), hardStop: nil)
    }

    @Test func perBatchCommitsStopAtTheHandlersFloorUntilItLetsGoOnShutdown() async throws {
        let topic = try await TestServers.topic("svc-batch", logger: Self.logger)
        try await produce(5, to: topic)
        let groupId = TestServers.unique("svc-batch")
        let consumer = try TestServers.consumer(topic: topic, group: groupId, clientPrefix: "svc-batch", logger: Self.logger)
        let processed = AsyncCondition(0)
        let service = KafkaConsumerService("batch", consumer: consumer, logger: Self.logger, commits: .perBatchLatestWins(
            HoldingHandler(holdOffset: 2, processed: processed), maximumMessages: 10, drainWait: .milliseconds(200)))
        let group = group(service, consumer)
        let running = Task { await group.run() }
        #expect(await processed.wait(until: { $0 == 5 }, timeout: .seconds(60)))
        #expect(try await waitForCommitted(2, groupId, topic) == 2, "all five processed, committed up to the held message")
        group.triggerGracefulShutdown()
        #expect(await running.value == 0)
        #expect(try await committed(groupId, topic) == 5, "finish() let go of the held message: everything committed")
    }

    @Test func outOfOrderWorkIsCommittedUpToTheFirstUnfinishedMessage() async throws {
        let topic = try await TestServers.topic("svc-ooo", logger: Self.logger)
        try await produce(4, to: topic)
        let groupId = TestServers.unique("svc-ooo")
        let consumer = try TestServers.consumer(topic: topic, group: groupId, clientPrefix: "svc-ooo", logger: Self.logger)
        let tracker = CommitTracker()
        let intake = Collecting()
        let service = KafkaConsumerService("intake", consumer: consumer, logger: Self.logger,
                                           commits: .outOfOrder(tracker, intake: intake, commitInterval: .milliseconds(50)))
        let group = group(service, consumer)
        let running = Task { await group.run() }
        #expect(await intake.accepted.wait(until: { $0.count == 4 }, timeout: .seconds(60)))
        let messages = intake.accepted.value
        for message in messages.dropFirst() { tracker.finish(message.topicPartition, offset: message.offset) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await committed(groupId, topic) <= 0, "the first message is not final: nothing after it is committed")
        tracker.finish(messages[0].topicPartition, offset: messages[0].offset)
        #expect(try await waitForCommitted(4, groupId, topic) == 4)
        group.triggerGracefulShutdown()
        #expect(await running.value == 0)
    }
}
