@testable import DevStack
import Foundation
import Kafka
import Runtime
import ServerTestSupport
import Testing

/// The dev stack's fast-forward of fresh consumer groups (`DevConsumerGroups`): a run's services
/// must start at the end of the shared topics, not replay earlier runs' records.
@Suite struct DevFastForwardTests {
    @Test func aFastForwardedGroupReadsOnlyWhatIsProducedAfterwards() async throws {
        let logger = TestServers.quietLogger("dev-stack-tests")
        let topic = try await TestServers.topic("fast-forward", partitions: 6, logger: logger)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestServers.brokers, clientId: "dev-stack-tests"),
                                   logger: logger)
        let producer = try TestServers.producer(clientPrefix: "dev-stack-tests", logger: logger)
        // Old records written in multi-record batches (one produce call each, several keys per
        // partition): Tansu reported the end of such a partition short of its last records, and a
        // group committed at that reported end read them again (17 push jobs in a dev run).
        for round in 0..<6 {
            let batch = (0..<10).map { index in
                KafkaOutgoingMessage(topic: topic, key: Array("old-\(round)-\(index)".utf8), value: Array("old".utf8))
            }
            for result in await producer.sendAll(batch) { _ = try result.get() }
        }
        let group = TestServers.unique("fast-forward-group")
        await DevConsumerGroups.fastForward(group: group, topic: topic, cluster: KafkaCluster(bootstrapServers: TestServers.brokers), logger: logger, timeout: .seconds(30))
        let committed = try await admin.committedOffsets(group: group, topics: [topic], timeout: .seconds(15))
        #expect(committed.count == 6, "every partition committed: \(committed)")
        #expect(committed.values.reduce(0, +) == 60, "past all 60 old records: \(committed)")

        // The service's member of the same group starts at the end: only the new records.
        for index in 0..<6 { _ = try await producer.send(topic: topic, key: "new-\(index)", value: Array("new".utf8)) }
        let consumer = try TestServers.consumer(topic: topic, group: group, clientPrefix: "dev-stack-tests", logger: logger)
        var read: [KafkaMessage] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while read.count < 6, ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) { read.append(message) }
        }
        #expect(read.count == 6, "the six new records within 30 s")
        #expect(read.allSatisfy { $0.keyString?.hasPrefix("new-") == true }, "\(read.compactMap(\.keyString))")
        let extra = try await consumer.poll(timeout: .seconds(2))
        #expect(extra == nil, "nothing old after the new ones: \(extra?.keyString ?? "")")
        try await consumer.close()
        try await producer.shutdown()
    }
}
