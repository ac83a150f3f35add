import Foundation
import Kafka
import Runtime
import Synchronization
import Testing

/// The consume loop under graceful shutdown (issue 14) — what the detector and la-coordinator's
/// token-invalid loop run: the message in hand is finished and committed, nothing after it is
/// taken, and the next owner of the group starts exactly after it.
@Suite(.timeLimit(.minutes(2))) struct GracefulConsumeTests {
    @Test func shutdownDuringAMessageFinishesAndCommitsItAndTheNextOwnerStartsAfterIt() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "graceful", partitions: 1)
        let group = KafkaTestSupport.unique("graceful-group")
        let producer = try KafkaTestSupport.producer()
        for index in 0..<5 { _ = try await producer.send(topic: topic, key: "k", value: Array("m\(index)".utf8)) }

        let consumer = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(group: group, topics: [topic]), logger: KafkaTestSupport.logger)
        let handled = LockedValue<[String]>([])
        let inSecond = AsyncCondition(false)
        let release = AsyncCondition(false)
        let trigger = GracefulShutdownTrigger()
        let loop = Task {
            try await GracefulShutdown.$trigger.withValue(trigger) {
                try await CommitAfterHandleLoop(consumer: consumer).run(logger: KafkaTestSupport.logger, failed: { _, _ in }, handle: { message in
                    let text = String(decoding: message.value, as: UTF8.self)
                    if text == "m1" {
                        inSecond.update { $0 = true }
                        _ = await release.wait(until: { $0 })
                    }
                    handled.withLock { $0.append(text) }
                })
            }
        }
        // Positive barrier: the loop is inside the second message.
        #expect(await inSecond.wait(until: { $0 }, timeout: .seconds(30)))
        trigger.trigger()
        release.update { $0 = true }
        try await loop.value
        #expect(handled.withLock { $0 } == ["m0", "m1"], "the message in hand was finished, none after it taken")
        let committed = try await admin.committedOffsets(group: group, topics: [topic], timeout: .seconds(15))
        #expect(committed.values.reduce(0, +) == 2, "both handled messages, and only they, are committed: \(committed)")
        try await consumer.close()

        let next = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(group: group, topics: [topic]), logger: KafkaTestSupport.logger)
        let rest = try await KafkaTestSupport.consume(next, count: 3, commit: false, timeout: .seconds(30))
        #expect(rest.map { String(decoding: $0.value, as: UTF8.self) } == ["m2", "m3", "m4"], "nothing done twice, nothing skipped")
        try await next.close()
        try? await producer.shutdown(timeout: .seconds(5))
    }
}
