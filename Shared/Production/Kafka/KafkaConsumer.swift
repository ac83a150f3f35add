import Dispatch
import Runtime

/// A consumer-group member with manual, synchronous commits.
///
/// Receive with ``poll(timeout:)`` or iterate ``messages(pollTimeout:)``; after a message's work is
/// done, ``commit(_:)`` it. The blocking `rd_kafka_consumer_poll` and `rd_kafka_consumer_close` run on
/// this consumer's own serial queue, commits on a second one, never on Swift's cooperative pool.
/// Call ``close()`` to leave the group cleanly; dropping the consumer without it closes it in deinit
/// (blocking that thread).
///
/// Every poll also feeds a ``KafkaMembershipWatch`` (when `configuration.strandedAfter` is set): while the member
/// holds no partitions, its group's lag and state are read from the broker (``KafkaAdmin``'s group reads, on that
/// admin's own queue, never delaying the poll) and exported as `kafka_group_lag`; a member found stranded is
/// reported not ready by ``checkBroker(timeout:)`` and its librdkafka client is replaced by a new one that
/// subscribes again (`kafka_consumer_rebuilt_total`), on the poll queue, before the next poll.
public final class KafkaConsumer: Sendable {
    /// The current librdkafka client; replaced only on the poll queue by a rebuild. Each queued block reads it
    /// once and keeps that client alive for its blocking call.
    private let current: LockedValue<RDKafkaClient>
    private let state: RDKafkaConsumerState
    private let context: RDKafkaCallbackContext
    private let pollQueue: DispatchQueue
    private let commitQueue: DispatchQueue
    /// Broker probes (``checkBroker(timeout:)``), apart from polls and commits.
    private let probeQueue: DispatchQueue
    private let logger: Logger
    private let guardian: KafkaMembershipGuardian?
    /// A rebuild asked for directly (``requestRebuild(reason:)``), taken by the next poll.
    private let requestedRebuild = LockedValue<String?>(nil)
    /// The group-health figures, when a registry was given.
    public let metrics: KafkaConsumerMetrics?
    /// The configuration this consumer was created with.
    public let configuration: KafkaConsumerConfiguration

    private var client: RDKafkaClient { current.withLock { $0 } }

    /// Creates the consumer and subscribes to `configuration.topics`.
    ///
    /// - Parameters:
    ///   - metrics: where the group-health figures go (``KafkaConsumerMetrics``); nil exports none.
    ///   - onRebalance: called with every assignment change, on the poll queue, while `poll` or
    ///     `close` runs. It must return quickly and must not call back into this consumer.
    /// - Throws: ``KafkaConfigurationError`` for a rejected property, ``KafkaError`` if creation or subscribe fails.
    public init(configuration: KafkaConsumerConfiguration, logger: Logger, metrics: MetricsRegistry? = nil,
                onRebalance: (@Sendable (KafkaRebalanceEvent) -> Void)? = nil) throws {
        self.configuration = configuration
        self.logger = logger
        let metrics = metrics.map { KafkaConsumerMetrics(registry: $0, group: configuration.groupId) }
        self.metrics = metrics
        state = RDKafkaConsumerState(logger: logger, groupId: configuration.groupId, metrics: metrics, onRebalance: onRebalance)
        context = RDKafkaCallbackContext(logger: logger.child("librdkafka"), consumer: state)
        let client = try RDKafkaClient(kind: .consumer, properties: configuration.librdkafkaProperties, context: context)
        current = LockedValue(client)
        pollQueue = DispatchQueue(label: "kafka.consumer.poll.\(configuration.groupId)")
        commitQueue = DispatchQueue(label: "kafka.consumer.commit.\(configuration.groupId)")
        probeQueue = DispatchQueue(label: "kafka.consumer.probe.\(configuration.groupId)")
        guardian = configuration.strandedAfter.map {
            KafkaMembershipGuardian(configuration: configuration, bound: $0, logger: logger, metrics: metrics)
        }
        try client.subscribe(configuration.topics)
        logger.info("kafka consumer subscribed", [
            "client": client.name, "group": configuration.groupId, "topics": configuration.topics.joined(separator: ","),
        ])
    }

    /// Waits up to `timeout` for the next message; nil when none arrived.
    ///
    /// Rebalances and statistics are served during this call, so keep calling it (at least every
    /// `max.poll.interval.ms`). Non-fatal consumer errors are logged and yield nil.
    /// - Throws: ``KafkaError`` when the consumer is closed or hit a fatal error.
    public func poll(timeout: Duration = .milliseconds(250)) async throws -> KafkaMessage? {
        let milliseconds = timeout.timeoutMilliseconds
        let message = try await BlockingCalls.run(on: pollQueue) { [self] () throws -> KafkaMessage? in
            guard !state.isClosed else { throw KafkaError.closed("poll") }
            if let reason = guardian?.takeRebuild() ?? requestedRebuild.withLock({ $0.take() }) { rebuild(reason: reason) }
            return try client.consumerPoll(timeoutMs: milliseconds, logger: logger)
        }
        guardian?.observe(holdsPartitions: state.holdsPartitions)
        return message
    }

    /// Replaces the librdkafka client with a new one that subscribes again. On the poll queue only. The old one leaves
    /// the group if its coordinator answers within 5 s (else the broker expires it after the session timeout) and is
    /// destroyed without a second close; its partitions, if any, are reported lost so that work taken from them is
    /// dropped.
    private func rebuild(reason: String) {
        let old = client
        logger.error("rebuilding the consumer: it is stranded outside its group", [
            "group": configuration.groupId, "client": old.name, "reason": reason,
        ])
        state.abandonAssignment(client: old.name)
        let left = old.closeConsumer(withinMs: 5000)
        do {
            let fresh = try RDKafkaClient(kind: .consumer, properties: configuration.librdkafkaProperties, context: context)
            try fresh.subscribe(configuration.topics)
            current.withLock { $0 = fresh }
            if !left { logger.warning("the stranded client did not leave its group within 5 s", ["group": configuration.groupId]) }
            metrics?.rebuilt()
            guardian?.rebuilt(failed: false)
            logger.info("kafka consumer rebuilt and subscribed", ["group": configuration.groupId, "client": fresh.name])
        } catch {
            guardian?.rebuilt(failed: true)
            logger.error("rebuilding the consumer failed; the next poll tries again", [
                "group": configuration.groupId, "error": String(describing: error),
            ])
        }
    }

    /// Asks for the client to be replaced before the next poll, as the membership guard does for a stranded member.
    func requestRebuild(reason: String) {
        requestedRebuild.withLock { $0 = reason }
    }

    /// Messages as an `AsyncSequence` that polls with `pollTimeout` until the consumer is closed
    /// or the iterating task is cancelled.
    public func messages(pollTimeout: Duration = .milliseconds(250)) -> KafkaMessageSequence {
        KafkaMessageSequence(consumer: self, pollTimeout: pollTimeout)
    }

    /// Synchronously commits `message.offset + 1` for the message's partition (call after processing).
    public func commit(_ message: KafkaMessage) async throws {
        try await commit([message.topicPartition: message.offset + 1])
    }

    /// Synchronously commits the given next-offsets (the offset of the next message to read, per partition).
    ///
    /// A failure is counted by reason (``KafkaConsumerMetrics``). When it ``KafkaError/meansAssignmentLost``,
    /// do not retry: drop the work, keep polling (see ``KafkaOffsetCommitter``).
    /// - Throws: ``KafkaError``.
    public func commit(_ nextOffsets: [KafkaTopicPartition: Int64]) async throws {
        guard !nextOffsets.isEmpty else { return }
        do {
            try await BlockingCalls.run(on: commitQueue) { [self] in
                guard !state.isClosed else { throw KafkaError.closed("commit") }
                try client.commit(nextOffsets)
            }
            metrics?.committed()
        } catch let error as KafkaError {
            metrics?.commitFailed(error)
            throw error
        }
    }

    /// True when librdkafka considers this member's assignment lost (its session expired or its
    /// generation changed) and it has not been given a new one yet. Work taken from the old
    /// assignment should be dropped: its partitions may already be someone else's.
    public var isAssignmentLost: Bool { client.assignmentLost }

    /// Throws when ``isAssignmentLost``: for retry loops that must stop retrying work this member
    /// no longer owns.
    /// - Throws: ``KafkaError`` with ``KafkaError/meansAssignmentLost``.
    public func requireAssignment() throws(KafkaError) {
        if client.assignmentLost { throw KafkaError.assignmentLost("keep the assignment of group \(configuration.groupId)") }
    }

    /// Succeeds when a broker answers a metadata request within `timeout` (a paused broker keeps
    /// its connections open, so only an answer counts) and this member is not stranded outside its group
    /// (``KafkaMembershipWatch``). For readiness probes.
    /// - Throws: ``KafkaError`` (`_TIMED_OUT`, `_TRANSPORT`, …; `_STATE` for a stranded member).
    public func checkBroker(timeout: Duration = .seconds(2)) async throws {
        if let stranded = guardian?.strandedReason {
            throw KafkaError(code: KafkaError.stateCode, name: "_STATE", message: stranded,
                             operation: "stay a member of group \(configuration.groupId)")
        }
        let milliseconds = timeout.timeoutMilliseconds
        try await BlockingCalls.run(on: probeQueue) { [self] in
            try client.brokerRoundTrip(timeoutMs: milliseconds)
        }
    }

    /// The partitions currently assigned to this member, sorted.
    public var assignment: [KafkaTopicPartition] { state.assignment }

    /// Per-partition lag of the current assignment from the latest librdkafka statistics
    /// (empty unless `statisticsInterval` is set and a report arrived). Uses the fetch high
    /// watermark, which is right on Tansu.
    public var partitionLag: [KafkaPartitionLag] { state.partitionLag }

    /// A number that changes with every rebalance this member applies (assign, revoke). Rebalances
    /// are applied only inside ``poll(timeout:)``/``close()``, so work polled and finished without a
    /// poll in between sees one value; ``KafkaOffsetCommitter`` drops offsets staged under an older one.
    public var assignmentGeneration: UInt64 { state.generation }

    /// True once ``close()`` has begun.
    public var isClosed: Bool { state.isClosed }

    /// Leaves the group cleanly (revokes the assignment, reported through `onRebalance`). Idempotent.
    ///
    /// Waits at most ``closeBound`` for librdkafka's close. It can block for ever: a CI run caught
    /// `rd_kafka_consumer_close` serving a rebalance whose `rd_kafka_assign` waited on a reply that never came
    /// (the test process hung for 20 minutes). Past the bound the close is left running on the poll queue (it keeps
    /// the client alive, so nothing is freed under it), an error is logged, and the caller goes on: a service's
    /// shutdown, or a test, is not held by a stuck library call.
    public func close() async throws {
        let finished: Bool = try await ThreadHandoff.value { resumer in
            let answered = LockedValue(false)
            let answer: @Sendable (Result<Bool, any Error>) -> Void = { result in
                if answered.withLock({ first in defer { first = true }; return !first }) { resumer.resume(with: result) }
            }
            pollQueue.async { [self] in
                answer(Result {
                    guard state.markClosed() else { return true }
                    try client.closeConsumer()
                    return true
                })
            }
            BlockingCalls.queue.asyncAfter(deadline: .now() + .milliseconds(Int(Self.closeBound.timeoutMilliseconds))) {
                answer(.success(false))
            }
        }
        guardian?.close()
        guard finished else {
            logger.error("kafka consumer close did not finish in time; left running", [
                "client": client.name, "group": configuration.groupId, "bound": "\(Self.closeBound)",
            ])
            return
        }
        logger.info("kafka consumer closed", ["client": client.name, "group": configuration.groupId])
    }

    /// How long ``close()`` waits for librdkafka's close (a clean close takes about one round trip to the coordinator).
    public static let closeBound: Duration = .seconds(30)
}
