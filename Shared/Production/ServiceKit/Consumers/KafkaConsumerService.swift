import Kafka
import Runtime

/// The consume loop of one ``KafkaConsumer`` as a service: it polls, hands the work to its handler, and
/// commits what its ``KafkaCommitPolicy`` says is done — always through one ``KafkaOffsetCommitter``, so every
/// consumer follows the same group rules (nothing staged before a rebalance is committed after it, a commit
/// refused because the assignment is gone drops its offsets, other failures are retried with back-off).
///
/// On graceful shutdown the loop stops polling, finishes what the policy says is in hand, commits it and
/// returns; when cancelled (the grace period is over) it returns without committing what is unfinished,
/// which the partitions' next owner reads again. The consumer itself is closed by its own
/// ``ResourceService``, listed before this service so that it closes after the loop stopped.
public struct KafkaConsumerService: Service {
    public let name: String
    public let consumer: KafkaConsumer
    public let policy: KafkaCommitPolicy
    let logger: Logger

    /// - Parameters:
    ///   - name: the service name in logs ("detector-loop", "match-events").
    ///   - consumer: the subscribed consumer this loop polls.
    ///   - logger: where commit failures and dropped work are logged.
    ///   - policy: when offsets are committed, and the handler that does the work.
    public init(_ name: String, consumer: KafkaConsumer, logger: Logger, commits policy: KafkaCommitPolicy) {
        self.name = name
        self.consumer = consumer
        self.logger = logger
        self.policy = policy
    }

    public func run() async throws {
        switch policy.kind {
        case .perMessage(let maximumBackoff, let failed, let handle):
            try await CommitAfterHandleLoop(consumer: consumer, maximumBackoff: maximumBackoff)
                .run(logger: logger, failed: failed, handle: handle)
        case .perBatchLatestWins(let handler, let maximumMessages, let drainWait):
            try await BatchCommitLoop(consumer: consumer, logger: logger, maximumMessages: maximumMessages, drainWait: drainWait)
                .run(handler)
        case .outOfOrder(let tracker, let intake, let commitInterval):
            try await OutOfOrderCommitLoop(consumer: consumer, logger: logger, tracker: tracker, commitInterval: commitInterval)
                .run(intake)
        }
    }
}

/// When a ``KafkaConsumerService`` commits, and the handler that does its work.
public struct KafkaCommitPolicy: Sendable {
    enum Kind: Sendable {
        case perMessage(maximumBackoff: Duration, failed: @Sendable (any Error, KafkaMessage) -> Void,
                        handle: @Sendable (KafkaMessage) async throws -> Void)
        case perBatchLatestWins(any KafkaBatchHandler, maximumMessages: Int, drainWait: Duration)
        case outOfOrder(CommitTracker, any KafkaIntakeHandler, commitInterval: Duration)
    }

    let kind: Kind

    /// One message at a time, its offset committed once `handle` returned (``CommitAfterHandleLoop``): a failing
    /// message is retried with a capped back-off and never skipped (a handler skips an unreadable message by
    /// returning, after parking it); a message in hand when the assignment is lost is dropped for its next owner.
    /// - Parameters:
    ///   - failed: called with each handling failure before its retry (count it, log it).
    ///   - handle: processes one message; returning means it may be committed.
    public static func perMessage(maximumBackoff: Duration = .seconds(5), failed: @escaping @Sendable (any Error, KafkaMessage) -> Void,
                                  handle: @escaping @Sendable (KafkaMessage) async throws -> Void) -> KafkaCommitPolicy {
        KafkaCommitPolicy(kind: .perMessage(maximumBackoff: maximumBackoff, failed: failed, handle: handle))
    }

    /// Batches of what is already fetched (a first message, then up to `maximumMessages` more, each extra poll
    /// waiting `drainWait`), processed together by `handler` — which may keep only the latest of each key —
    /// and committed per batch once processed, clamped to the handler's ``KafkaBatchHandler/commitFloor``
    /// (work it still holds back). A batch polled across a rebalance, or whose assignment is lost while it is
    /// processed, is dropped for the partitions' next owner.
    public static func perBatchLatestWins(_ handler: some KafkaBatchHandler, maximumMessages: Int,
                                          drainWait: Duration) -> KafkaCommitPolicy {
        KafkaCommitPolicy(kind: .perBatchLatestWins(handler, maximumMessages: max(1, maximumMessages), drainWait: drainWait))
    }

    /// Messages handed to `intake` as they are read (while it has room) and finished out of order: each is
    /// begun in `tracker` as it is taken, and every `commitInterval` each partition is committed up to its
    /// first message whose work has no final answer yet (``CommitTracker``). A message read after shutdown
    /// began is not begun (it stays uncommitted for the next owner); on shutdown what became final is committed.
    public static func outOfOrder(_ tracker: CommitTracker, intake: some KafkaIntakeHandler,
                                  commitInterval: Duration = .milliseconds(100)) -> KafkaCommitPolicy {
        KafkaCommitPolicy(kind: .outOfOrder(tracker, intake, commitInterval: commitInterval))
    }
}
