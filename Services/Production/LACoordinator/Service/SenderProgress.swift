import Kafka
import Runtime

/// Reads how far apns-sender's consumer group has come on the jobs topic: its committed next offset per
/// partition, through the admin client's group reader (one OffsetFetch per read). The `PlainUpdateGate` uses it
/// to know when a match's fan-out has been sent.
final class SenderProgress: Sendable {
    let admin: KafkaAdmin
    /// apns-sender's group (`LA_SENDER_GROUP`).
    let group: String
    /// The jobs topic (`LA_JOBS_TOPIC`).
    let topic: String
    let logger: Logger
    /// How long one read may take before it counts as failed (2 s: a held update should not wait on a slow broker).
    let readTimeout: Duration
    /// Since when every read found no commit at all (nil: the last read found some), and whether that was warned.
    private let emptySince = LockedValue<(since: ContinuousClock.Instant?, warned: Bool)>((nil, false))

    init(admin: KafkaAdmin, group: String, topic: String, readTimeout: Duration = .seconds(2), logger: Logger) {
        self.admin = admin
        self.readTimeout = readTimeout
        self.group = group
        self.topic = topic
        self.logger = logger
    }

    /// The group's committed next offset per partition of the jobs topic, or nil when the read failed (logged at
    /// debug: a held update then waits for its bound, and the next read tries again). A group without a single
    /// commit on the topic for 30 s of reads is most likely a wrong `LA_SENDER_GROUP`: warned once (held updates
    /// then wait for the hold bound).
    func committed() async -> [Int32: Int64]? {
        do {
            let offsets = try await admin.committedOffsets(group: group, topics: [topic], timeout: readTimeout)
            var byPartition: [Int32: Int64] = [:]
            for (partition, offset) in offsets where partition.topic == topic && offset >= 0 { byPartition[partition.partition] = offset }
            let warn = emptySince.withLock { state -> Bool in
                guard byPartition.isEmpty else {
                    state.since = nil
                    return false
                }
                let since = state.since ?? .now
                state.since = since
                guard !state.warned, ContinuousClock.now - since >= .seconds(30) else { return false }
                state.warned = true
                return true
            }
            if warn {
                logger.warning("apns-sender's group has no commits on the jobs topic: is LA_SENDER_GROUP its group? Held plain updates wait for LA_PLAIN_UPDATE_MAX_HOLD_MS",
                               ["group": group, "topic": topic])
            }
            return byPartition
        } catch {
            logger.debug("cannot read apns-sender's committed offsets", ["group": group, "error": "\(error)"])
            return nil
        }
    }
}
