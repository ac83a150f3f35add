import Dispatch
import Runtime

/// A consumer-group member with manual, synchronous commits.
///
/// Receive with ``poll(timeout:)`` or iterate ``messages(pollTimeout:)``; after a message's work is
/// done, ``commit(_:)`` it. The blocking `rd_kafka_consumer_poll` and `rd_kafka_consumer_close` run on
/// this consumer's own serial queue, commits on a second one, never on Swift's cooperative pool.
/// Call ``close()`` to leave the group cleanly; dropping the consumer without it closes it in deinit
/// (blocking that thread).
public final class KafkaConsumer: Sendable {
    /// Each queued block captures the client, so it outlives every blocking call in flight.
    private let client: RDKafkaClient
    private let state: RDKafkaConsumerState
    private let pollQueue: DispatchQueue
    private let commitQueue: DispatchQueue
    /// Broker probes (``checkBroker(timeout:)``), apart from polls and commits.
    private let probeQueue: DispatchQueue
    private let logger: Logger
    /// The group-health figures, when a registry was given.
    public let metrics: KafkaConsumerMetrics?
    /// The configuration this consumer was created with.
    public let configuration: KafkaConsumerConfiguration

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
        let context = RDKafkaCallbackContext(logger: logger.child("librdkafka"), consumer: state)
        client = try RDKafkaClient(kind: .consumer, properties: configuration.librdkafkaProperties, context: context)
        pollQueue = DispatchQueue(label: "kafka.consumer.poll.\(configuration.groupId)")
        commitQueue = DispatchQueue(label: "kafka.consumer.commit.\(configuration.groupId)")
        probeQueue = DispatchQueue(label: "kafka.consumer.probe.\(configuration.groupId)")
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
        return try await BlockingCalls.run(on: pollQueue) { [client, state, logger] () throws -> KafkaMessage? in
            guard !state.isClosed else { throw KafkaError.closed("poll") }
            return try client.consumerPoll(timeoutMs: milliseconds, logger: logger)
        }
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
            try await BlockingCalls.run(on: commitQueue) { [client, state] in
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
    /// its connections open, so only an answer counts). For readiness probes.
    /// - Throws: ``KafkaError`` (`_TIMED_OUT`, `_TRANSPORT`, …).
    public func checkBroker(timeout: Duration = .seconds(2)) async throws {
        let milliseconds = timeout.timeoutMilliseconds
        try await BlockingCalls.run(on: probeQueue) { [client] in
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
    public func close() async throws {
        try await BlockingCalls.run(on: pollQueue) { [client, state] in
            guard state.markClosed() else { return }
            try client.closeConsumer()
        }
        logger.info("kafka consumer closed", ["client": client.name, "group": configuration.groupId])
    }
}
