import Contracts
import Kafka
import Runtime
import Synchronization

/// Reads `push.dead` as consumer group `group` and sends the pushes worth sending again back to
/// `push.jobs` (`DeadPushTriage`): each as the next attempt of the same job, keyed by its shard,
/// so apns-sender delivers it with the same apns-ids and in order with the token's other pushes.
///
/// The group's offsets are committed only after every re-driven job is acknowledged, so a record
/// is re-driven at least once and, once committed, never again by the same group. Records that
/// are not a readable `DeadPush` are counted and left; rejected ones (no job) are skipped. A dry run
/// decides and reports but neither produces nor commits.
public struct DeadPushRedriver: Sendable {
    /// What one run did.
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        public var read = 0
        public var redriven = 0
        public var redrivenTargets = 0
        public var skipped: [DeadPushTriage.Reason: Int] = [:]
        /// Records that are not a readable `DeadPush`.
        public var notDeadPush = 0

        public var description: String {
            let skips = DeadPushTriage.Reason.allCases.map { "\($0.rawValue) \(skipped[$0] ?? 0)" }.joined(separator: ", ")
            return "read \(read): re-driven \(redriven) (\(redrivenTargets) targets); skipped: \(skips); not a dead push \(notDeadPush)"
        }
    }

    public var cluster: KafkaCluster
    public var group: String
    public var deadTopic = Topic.dead.name
    public var jobsTopic = Topic.pushJobs.name
    /// `PUSH_SHARDS`: the shard count the jobs are keyed by (as la-coordinator and the poller use).
    public var shards = PushSharding.defaultShards
    public var includePermanent = false
    public var dryRun = false
    /// The run ends once no record arrived for this long (after the group was assigned).
    public var idle: Duration = .seconds(3)
    /// An upper bound on the whole run.
    public var timeout: Duration = .seconds(120)
    public let clock: any WallClock
    public let logger: Logger

    public init(cluster: KafkaCluster, group: String, clock: any WallClock = SystemWallClock(), logger: Logger) {
        self.cluster = cluster
        self.group = group
        self.clock = clock
        self.logger = logger
    }

    /// Reads the dead topic to its end (as far as this group has not yet committed) and re-drives.
    /// - Throws: `KafkaError` when the clients cannot be created, a produce fails (nothing is
    ///   committed then; a rerun tries again) or the commit fails.
    public func run() async throws -> Report {
        var consumerConfiguration = KafkaConsumerConfiguration(
            cluster: cluster, clientId: "sightscreen-redrive", groupId: group, topics: [deadTopic])
        consumerConfiguration.autoOffsetReset = .earliest
        consumerConfiguration.sessionTimeout = .seconds(10)
        consumerConfiguration.heartbeatInterval = .seconds(1)
        let assigned = LockedValue(false)
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger, onRebalance: { event in
            if case .assigned = event { assigned.withLock { $0 = true } }
        })
        do {
            let report = try await redrive(from: consumer, assigned: assigned)
            try await consumer.close()
            return report
        } catch {
            try? await consumer.close()
            throw error
        }
    }

    private func redrive(from consumer: KafkaConsumer, assigned: borrowing LockedValue<Bool>) async throws -> Report {
        var report = Report()
        var jobs: [KafkaOutgoingMessage] = []
        var nextOffsets: [KafkaTopicPartition: Int64] = [:]
        let deadline = ContinuousClock.now + timeout
        var quietSince: ContinuousClock.Instant?  // set once assigned; reset by every record
        while ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                quietSince = ContinuousClock.now
                report.read += 1
                nextOffsets[message.topicPartition] = max(nextOffsets[message.topicPartition] ?? 0, message.offset + 1)
                if let job = try triage(message, into: &report) { jobs.append(job) }
                continue
            }
            guard assigned.withLock({ $0 }) else { continue }
            let since = quietSince ?? ContinuousClock.now
            quietSince = since
            if ContinuousClock.now - since >= idle { break }
        }
        guard !dryRun else { return report }
        if !jobs.isEmpty {
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(cluster: cluster, clientId: "sightscreen-redrive"), logger: logger)
            let results = await producer.sendAll(jobs)
            try? await producer.shutdown(timeout: .seconds(5))
            for result in results { _ = try result.get() }
        }
        if !nextOffsets.isEmpty { try await consumer.commit(nextOffsets) }
        return report
    }

    /// The job to produce for `message`, or nil (counted in `report`).
    private func triage(_ message: KafkaMessage, into report: inout Report) throws -> KafkaOutgoingMessage? {
        guard let record = try? MessageCodec.decode(DeadPush.self, from: message.value) else {
            report.notDeadPush += 1
            return nil
        }
        switch DeadPushTriage.decide(record, nowSeconds: Int64(clock.now().timeIntervalSince1970), includePermanent: includePermanent) {
        case .skip(let reason):
            report.skipped[reason, default: 0] += 1
            return nil
        case .redrive(let job):
            report.redriven += 1
            report.redrivenTargets += job.targets.count
            logger.info("re-driving dead push", [
                "jobId": job.jobId, "targets": String(job.targets.count), "attempt": String(job.attempt), "lastError": record.lastError,
            ])
            return KafkaOutgoingMessage(topic: jobsTopic, key: Array(job.shardKey(shards: shards).utf8), value: try MessageCodec.encode(job))
        }
    }
}
