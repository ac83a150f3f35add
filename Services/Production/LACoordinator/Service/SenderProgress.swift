import Kafka
import Runtime

/// Reads how far apns-sender's consumer group has come on the jobs topic: its committed next offset per
/// partition, through the admin client's group reader (one OffsetFetch per read). The `PlainUpdateGate` uses it
/// to know when a match's fan-out has been sent.
struct SenderProgress: Sendable {
    let admin: KafkaAdmin
    /// apns-sender's group (`LA_SENDER_GROUP`).
    let group: String
    /// The jobs topic (`LA_JOBS_TOPIC`).
    let topic: String
    let logger: Logger

    /// The group's committed next offset per partition of the jobs topic, or nil when the read failed (logged at
    /// debug: a held update then waits for its bound, and the next read tries again).
    func committed() async -> [Int32: Int64]? {
        do {
            let offsets = try await admin.committedOffsets(group: group, topics: [topic], timeout: .seconds(2))
            var byPartition: [Int32: Int64] = [:]
            for (partition, offset) in offsets where partition.topic == topic { byPartition[partition.partition] = offset }
            return byPartition
        } catch {
            logger.debug("cannot read apns-sender's committed offsets", ["group": group, "error": "\(error)"])
            return nil
        }
    }
}
