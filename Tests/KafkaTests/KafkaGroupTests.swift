import Foundation
import Kafka
import Synchronization
import Testing
import Runtime

@Suite("consumer groups against Tansu", .timeLimit(.minutes(1)))
struct KafkaGroupTests {
    @Test func reopenedGroupResumesAfterTheLastCommit() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "resume", partitions: 3)
        let producer = try KafkaTestSupport.producer()
        let outgoing = (0..<30).map { KafkaOutgoingMessage(topic: topic, key: Array("k\($0)".utf8), value: Array("v\($0)".utf8)) }
        _ = try await producer.sendAll(outgoing).map { try $0.get() }
        try await producer.shutdown(timeout: .seconds(5))
        let group = KafkaTestSupport.unique("resume")

        let first = try KafkaConsumer(configuration: KafkaTestSupport.consumerConfiguration(group: group, topics: [topic]), logger: KafkaTestSupport.logger)
        let before = try await KafkaTestSupport.consume(first, count: 12, commit: true)
        try await first.close()

        let second = try KafkaConsumer(configuration: KafkaTestSupport.consumerConfiguration(group: group, topics: [topic]), logger: KafkaTestSupport.logger)
        let after = try await KafkaTestSupport.consumeSequence(second, count: 18)
        let extra = try await KafkaTestSupport.drain(second, for: .seconds(1))
        try await second.close()

        let values = (before + after + extra).map { String(decoding: $0.value, as: UTF8.self) }
        #expect(extra.isEmpty, "received again: \(extra.map(\.topicPartition))")
        #expect(values.count == 30)
        #expect(Set(values) == Set((0..<30).map { "v\($0)" }), "lost or repeated: \(values.sorted())")
        // Per partition, the second consumer starts right after the first one's last commit.
        for partition in Int32(0)..<3 {
            let firstOffsets = before.filter { $0.partition == partition }.map(\.offset)
            let secondOffsets = after.filter { $0.partition == partition }.map(\.offset)
            let start = (firstOffsets.max() ?? -1) + 1
            #expect(secondOffsets == Array(start..<(start + Int64(secondOffsets.count))))
        }
    }

    /// Runs with the eager (`range`) and the cooperative (`cooperative-sticky`) rebalance protocol.
    @Test(arguments: ["range", "cooperative-sticky"])
    func twoMembersSplitThePartitionsAndConsumeEachMessageOnce(strategy: String) async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "split", partitions: 4)
        let group = KafkaTestSupport.unique("split")
        let events = LockedValue<[String: [KafkaRebalanceEvent]]>([:])
        func member(_ name: String) throws -> KafkaConsumer {
            var configuration = KafkaTestSupport.consumerConfiguration(group: group, topics: [topic])
            configuration.additional["partition.assignment.strategy"] = strategy
            return try KafkaConsumer(configuration: configuration, logger: KafkaTestSupport.logger) { event in
                events.withLock { $0[name, default: []].append(event) }
            }
        }
        let a = try member("a")
        let b = try member("b")
        let all = Set((0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) })

        // Both members poll (serving their rebalances) until the group settled on a split.
        let deadline = ContinuousClock.now + .seconds(30)
        var received: [String: [KafkaMessage]] = ["a": [], "b": []]
        while !(Set(a.assignment).union(b.assignment) == all && !a.assignment.isEmpty && !b.assignment.isEmpty
                && Set(a.assignment).isDisjoint(with: b.assignment)) {
            guard ContinuousClock.now < deadline else {
                throw KafkaTestFailure(description: "no split within 30 s: a=\(a.assignment) b=\(b.assignment)")
            }
            if let message = try await a.poll(timeout: .milliseconds(100)) { received["a"]!.append(message) }
            if let message = try await b.poll(timeout: .milliseconds(100)) { received["b"]!.append(message) }
        }
        #expect(received.values.allSatisfy { $0.isEmpty })

        let producer = try KafkaTestSupport.producer()
        let outgoing = (0..<40).map { KafkaOutgoingMessage(topic: topic, key: nil, value: Array("v\($0)".utf8), partition: Int32($0 % 4)) }
        _ = try await producer.sendAll(outgoing).map { try $0.get() }
        try await producer.shutdown(timeout: .seconds(5))

        let consumeDeadline = ContinuousClock.now + .seconds(20)
        while received.values.map(\.count).reduce(0, +) < 40 {
            guard ContinuousClock.now < consumeDeadline else {
                throw KafkaTestFailure(description: "consumed \(received.values.map(\.count).reduce(0, +)) of 40")
            }
            for (name, consumer) in [("a", a), ("b", b)] {
                if let message = try await consumer.poll(timeout: .milliseconds(100)) {
                    received[name]!.append(message)
                    try await consumer.commit(message)
                }
            }
        }
        received["a"]! += try await KafkaTestSupport.drain(a, for: .milliseconds(600))
        received["b"]! += try await KafkaTestSupport.drain(b, for: .milliseconds(600))
        let assignmentA = Set(a.assignment)
        let assignmentB = Set(b.assignment)
        try await a.close()
        try await b.close()

        #expect(!received["a"]!.isEmpty && !received["b"]!.isEmpty)
        #expect(received["a"]!.allSatisfy { assignmentA.contains($0.topicPartition) })
        #expect(received["b"]!.allSatisfy { assignmentB.contains($0.topicPartition) })
        let values = (received["a"]! + received["b"]!).map { String(decoding: $0.value, as: UTF8.self) }
        #expect(values.count == 40 && Set(values) == Set((0..<40).map { "v\($0)" }))
        let logged = events.withLock { $0 }
        #expect(logged["a"]?.contains { if case .assigned = $0 { true } else { false } } == true)
        #expect(logged["b"]?.contains { if case .revoked = $0 { true } else { false } } == true)
    }
}
