@testable import APNsSender
import APNs
import APNsMock
import Contracts
import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Testing

/// The marks apns-sender writes on its progress topic, read back as a member taking over would read them.
@Suite(.timeLimit(.minutes(2))) struct ProgressMarkTests {
    /// A delivered update's marks: its answers (accepted and refused), then a done mark that says its state reached
    /// devices (key and stateSeq). A job that expired unsent gets a done mark too, but one that claims no state: it
    /// must not supersede an older key event still in back-off after a restart.
    @Test func marksSayWhatWasAnsweredAndOnlyAcceptedStatesWentOut() async throws {
        let mock = try SenderFixtures.mock()
        let sender = try await SenderHarness.start(mock: mock)
        try await sender.waitUntilReady()
        let targets = (0..<5).map { _ in SenderFixtures.target() }
        mock.markUnregistered(targets[2].token)
        let delivered = SenderFixtures.job(targets: targets)
        let expired = SenderFixtures.job(targets: (0..<3).map { _ in SenderFixtures.target() }, expiresIn: -10)
        try await sender.produce([delivered], key: "m1:7")
        try await sender.produce([expired], key: "m1:8")
        try await sender.waitForCommitted(2)

        let reader = try KafkaPartitionReader(cluster: KafkaCluster(bootstrapServers: SenderFixtures.brokers),
                                              clientId: SenderFixtures.unique("marks-reader"), logger: SenderFixtures.quietLogger)
        var marks: [PushProgress] = []
        try await eventually("two done marks on the progress topic", within: .seconds(20), every: .milliseconds(100)) {
            let read = try await reader.read([KafkaTopicPartition(topic: sender.configuration.progressTopic, partition: 0)],
                                             since: Date(timeIntervalSinceNow: -120), maxBytes: 1 << 20, timeout: .seconds(10))
            marks = try read.messages.map { try MessageCodec.decode(PushProgress.self, from: $0.value) }
            return marks.filter { $0.kind == .done }.count == 2
        }
        let ofDelivered = marks.filter { $0.jobId == delivered.jobId }
        let answered = ofDelivered.filter { $0.kind == .answered }
        #expect(Set(answered.flatMap { $0.acceptedRanges(targetCount: 5) ?? [] }.flatMap { Array($0) }) == [0, 1, 3, 4])
        #expect(answered.flatMap(\.refused).map(\.index) == [2])
        #expect(answered.allSatisfy { $0.orderKey == "m1:7" && $0.stateSeq == delivered.stateSeq })
        let doneDelivered = try #require(ofDelivered.first { $0.kind == .done })
        #expect(doneDelivered.orderKey == "m1:7" && doneDelivered.stateSeq == delivered.stateSeq)
        #expect(ProgressIndex.StateSent(doneDelivered) == .key("m1:7", stateSeq: delivered.stateSeq))
        let doneExpired = try #require(marks.first { $0.jobId == expired.jobId && $0.kind == .done })
        #expect(doneExpired.orderKey == nil && doneExpired.stateSeq == nil)
        #expect(ProgressIndex.StateSent(doneExpired) == nil, "an expired job's state never went out")
        #expect(!marks.contains { $0.jobId == expired.jobId && $0.kind == .answered })
        try await sender.stop()
        mock.stop()
    }
}
