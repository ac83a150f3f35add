import Foundation
import Kafka
import Runtime
import Synchronization

/// The services' consumer groups for one dev run, and fast-forwarding fresh groups to the end of
/// their topics so a run only processes what it produces itself (a fresh group would otherwise
/// start at the earliest offset and replay every earlier run's snapshots, events and push jobs).
public struct DevConsumerGroups: Sendable, Equatable {
    public var detector: String
    public var coordinatorEvents: String
    public var coordinatorTokenInvalid: String
    public var coordinatorRecord: String
    public var sender: String

    /// Groups named `<service group>.<suffix>`.
    public init(suffix: String) {
        detector = "detector.\(suffix)"
        coordinatorEvents = "la-coordinator.\(suffix)"
        coordinatorTokenInvalid = "la-coordinator-token-invalid.\(suffix)"
        coordinatorRecord = "la-coordinator-delivery-record.\(suffix)"
        sender = "apns-sender.\(suffix)"
    }

    /// Each group with the topic it consumes.
    public var all: [(group: String, topic: String)] {
        [(detector, "sportmonks.fixtures"), (coordinatorEvents, "match.events"),
         (coordinatorTokenInvalid, "push.token-invalid"), (coordinatorRecord, "push.outcomes"), (sender, "push.jobs")]
    }

    /// Joins every group, and once it is assigned and its topic has been quiet for two seconds,
    /// commits each partition's end offset (past any record it read); returns when all are done or
    /// after `timeout` (a group not assigned by then is left as it is).
    public func fastForward(cluster: KafkaCluster, logger: Logger, timeout: Duration = .seconds(20)) async {
        await withTaskGroup(of: Void.self) { tasks in
            for (group, topic) in all {
                tasks.addTask { await Self.fastForward(group: group, topic: topic, cluster: cluster, logger: logger, timeout: timeout) }
            }
        }
    }

    static func fastForward(group: String, topic: String, cluster: KafkaCluster, logger: Logger, timeout: Duration) async {
        let assigned = LockedValue<[KafkaTopicPartition]?>(nil)
        var configuration = KafkaConsumerConfiguration(cluster: cluster, clientId: "dev-stack", groupId: group, topics: [topic])
        configuration.autoOffsetReset = .latest
        // Short session: should the leave be missed, the services' members are not kept waiting
        // for a 45 s default session of this short-lived member to expire.
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        let quiet = Logger(label: "dev-stack.kafka", minimumLevel: .error)
        guard let consumer = try? KafkaConsumer(configuration: configuration, logger: quiet, onRebalance: { event in
            if case .assigned(let partitions) = event { assigned.withLock { $0 = partitions } }
        }) else { return }
        let deadline = ContinuousClock.now + timeout
        var done = false
        // The last offset read per partition: the broker's reported end can lag behind its log
        // (Tansu's ListOffsets did: a fresh group committed at the reported end still read 17 older
        // push jobs), so the member also reads from the reported end until the topic is quiet and
        // commits past whatever it saw.
        var lastRead: [KafkaTopicPartition: Int64] = [:]
        var quietSince: ContinuousClock.Instant?  // set once assigned; reset by every record read
        while !done, ContinuousClock.now < deadline {
            if let message = try? await consumer.poll(timeout: .milliseconds(200)) {
                lastRead[message.topicPartition] = max(lastRead[message.topicPartition] ?? -1, message.offset)
                quietSince = ContinuousClock.now
                continue
            }
            guard let partitions = assigned.withLock({ $0 }), !partitions.isEmpty else { continue }
            let since = quietSince ?? ContinuousClock.now
            quietSince = since
            guard ContinuousClock.now - since >= .seconds(2) else { continue }
            let admin = try? KafkaAdmin(configuration: KafkaAdminConfiguration(cluster: cluster, clientId: "dev-stack"), logger: quiet)
            if let marks = try? await admin?.highWatermarks(topics: [topic]) {
                let offsets = Dictionary(uniqueKeysWithValues: partitions.compactMap { partition -> (KafkaTopicPartition, Int64)? in
                    let end = max(marks[partition]?.high ?? 0, (lastRead[partition] ?? -1) + 1)
                    return end > 0 ? (partition, end) : nil
                })
                if offsets.isEmpty {
                    done = true  // nothing was ever written: a fresh group starts at 0 anyway
                } else {
                    done = (try? await consumer.commit(offsets)) != nil
                }
            }
        }
        if !done { logger.warning("could not fast-forward a consumer group", ["group": group, "topic": topic]) }
        try? await consumer.close()
    }
}
