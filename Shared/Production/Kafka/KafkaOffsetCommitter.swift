import Runtime
import Synchronization

/// Next-offsets whose work is done, committed for one ``KafkaConsumer`` with the group rules every
/// consumer loop follows (the one implementation of them):
///
/// - A commit that fails because the member's assignment is gone (``KafkaError/meansAssignmentLost``:
///   session expired, generation changed) is not retried: the staged offsets are dropped, because their
///   partitions may already be another member's, and committing them later could move its offsets back.
///   The loop goes on polling, which rejoins the group; the partitions' next owner (perhaps this member
///   again) resumes from the committed offsets and redoes that work under the same ids (at-least-once).
/// - Any other failure (broker unreachable, coordinator moving, timeout) keeps the offsets staged and
///   retries them with a capped back-off on later ``commit()`` calls, newer offsets replacing older
///   ones; after `maximumAttempts` failures in a row the offsets are given up (logged as an error; the
///   next commit on the partition, or its next owner, covers them).
/// - Offsets of partitions no longer assigned are never committed, nor offsets staged before a
///   rebalance (``KafkaConsumer/assignmentGeneration``): after a revoke and a new assignment the
///   partition may have moved on under another member, and an old offset would move it back.
///
/// Failures are counted by reason in ``KafkaConsumerMetrics`` (`kafka_consumer_commit_failures_total`).
public final class KafkaOffsetCommitter: Sendable {
    /// What one ``commit()`` did.
    public enum Outcome: Sendable, Equatable {
        /// Nothing was staged.
        case nothingStaged
        /// The staged offsets are committed.
        case committed
        /// A retry is due later (back-off after a failure); nothing was sent.
        case deferred
        /// The commit failed; the offsets stay staged for a later attempt (`attempt` failures in a row).
        case willRetry(KafkaError, attempt: Int)
        /// The commit failed `maximumAttempts` times in a row; the offsets were dropped.
        case gaveUp(KafkaError)
        /// The member's assignment is gone; the offsets were dropped. Drop work in hand, keep polling.
        case assignmentLost(KafkaError)
    }

    private struct State {
        var staged: [KafkaTopicPartition: Int64] = [:]
        /// The consumer's assignment generation when `staged` was filled.
        var generation: UInt64 = 0
        /// Counts the failures in a row and spaces the retries.
        var backoff: Backoff
        var retryAt: ContinuousClock.Instant?

        /// Forgets what was staged under an older assignment generation.
        mutating func adopt(_ current: UInt64) {
            guard generation != current else { return }
            staged = [:]
            generation = current
        }

        /// Removes `offsets` that were not replaced by newer ones meanwhile (all of them with
        /// `evenIfNewer`) and ends the failure run.
        mutating func settle(_ offsets: [KafkaTopicPartition: Int64], evenIfNewer: Bool = false) {
            for (partition, next) in offsets where evenIfNewer || staged[partition] == next { staged[partition] = nil }
            backoff.reset()
            retryAt = nil
        }
    }

    public let consumer: KafkaConsumer
    public let maximumAttempts: Int
    private let logger: Logger
    private let state: LockedValue<State>

    public init(consumer: KafkaConsumer, logger: Logger, backoff: Backoff = Backoff(), maximumAttempts: Int = 10) {
        self.consumer = consumer
        self.logger = logger
        self.maximumAttempts = max(1, maximumAttempts)
        state = LockedValue(State(backoff: backoff))
    }

    /// Marks `message` done: its next offset is committed by the next ``commit()``.
    public func stage(_ message: KafkaMessage) {
        stage([message.topicPartition: message.offset + 1])
    }

    /// Marks work done up to these next-offsets (a partition's offset only moves forward).
    /// - Parameter polledIn: the ``KafkaConsumer/assignmentGeneration`` the work was polled under
    ///   (default: the current one — right when no poll ran since); offsets from an older one are dropped.
    public func stage(_ nextOffsets: [KafkaTopicPartition: Int64], polledIn generation: UInt64? = nil) {
        let current = consumer.assignmentGeneration
        guard generation == nil || generation == current else { return }
        state.withLock { state in
            state.adopt(current)
            state.staged.merge(nextOffsets) { max($0, $1) }
        }
    }

    /// Commits what is staged, unless a back-off from an earlier failure is still running (pass
    /// `now: true` to try anyway, e.g. before closing). Never throws: see ``Outcome``.
    @discardableResult
    public func commit(now: Bool = false) async -> Outcome {
        let assigned = Set(consumer.assignment)
        let generation = consumer.assignmentGeneration
        let offsets: [KafkaTopicPartition: Int64]? = state.withLock { state in
            state.adopt(generation)
            state.staged = state.staged.filter { assigned.contains($0.key) }
            guard !state.staged.isEmpty else { return [:] }
            if !now, let retryAt = state.retryAt, ContinuousClock.now < retryAt { return nil }
            return state.staged
        }
        guard let offsets else { return .deferred }
        guard !offsets.isEmpty else { return .nothingStaged }
        do {
            try await consumer.commit(offsets)
            state.withLock { $0.settle(offsets) }
            return .committed
        } catch let error as KafkaError where error.meansAssignmentLost {
            state.withLock { $0.settle(offsets, evenIfNewer: true) }
            logger.warning("offset commit refused: this member's assignment is gone; its work will be redone by the partitions' next owner",
                           ["error": error.description, "group": consumer.configuration.groupId, "offsets": Self.describe(offsets)])
            return .assignmentLost(error)
        } catch {
            let kafkaError = error as? KafkaError ?? KafkaError(code: -1, name: "UNKNOWN", message: "\(error)",
                                                                operation: "commit \(Self.describe(offsets))")
            let attempt: Int = state.withLock { state in
                let delay = state.backoff.next()
                let attempt = state.backoff.failures
                if attempt >= maximumAttempts {
                    state.settle(offsets)
                } else {
                    state.retryAt = ContinuousClock.now + delay
                }
                return attempt
            }
            let labels = ["error": kafkaError.description, "group": consumer.configuration.groupId, "offsets": Self.describe(offsets),
                          "attempt": String(attempt)]
            if attempt >= maximumAttempts {
                logger.error("offset commit failed \(attempt) times in a row; giving these offsets up (a later commit or the next owner covers them)",
                             labels)
                return .gaveUp(kafkaError)
            }
            logger.warning("offset commit failed; retrying with back-off", labels)
            return .willRetry(kafkaError, attempt: attempt)
        }
    }

    private static func describe(_ offsets: [KafkaTopicPartition: Int64]) -> String {
        offsets.sorted { $0.key < $1.key }.map { "\($0.key)@\($0.value)" }.joined(separator: ",")
    }
}
