import Foundation
import Kafka
import Runtime
import Testing

/// Topic administration against the real broker: create, see, delete, and both steps idempotent.
@Suite struct KafkaTopicAdminTests {
    @Test func createdTopicsCanBeDeletedAndDeletingTwiceIsNoError() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let first = try await KafkaTestSupport.makeTopic(admin, prefix: "admin-delete", partitions: 3)
        let second = try await KafkaTestSupport.makeTopic(admin, prefix: "admin-delete", partitions: 1)
        #expect(try await admin.describeTopic(first)?.partitions.count == 3)
        try await admin.createTopics([KafkaTopicSpec(name: first, partitions: 3)])  // already there: no error
        try await admin.deleteTopics([first, second], timeout: .seconds(20))
        let deadline = ContinuousClock.now + .seconds(20)
        var names = Set(try await admin.listTopics().map(\.name))
        while (names.contains(first) || names.contains(second)) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            names = Set(try await admin.listTopics().map(\.name))
        }
        #expect(!names.contains(first) && !names.contains(second), "deleted topics are gone from the metadata")
        try await admin.deleteTopics([first], timeout: .seconds(20))
    }
}
