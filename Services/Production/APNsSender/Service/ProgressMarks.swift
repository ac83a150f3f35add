import Contracts
import Foundation
import Kafka
import Runtime
import Synchronization

/// apns-sender's marks on `push.progress` (`PushProgress`): written while it sends, read back for the jobs partitions
/// it is assigned, so that a job re-read after a crash or a rebalance skips the targets APNs already answered and a
/// job that was final is not sent again (issue 42: duplicates through a kill -9).
///
/// - Writing never blocks or fails a job: a mark is produced without waiting for its acknowledgement, and a mark that
///   is lost only means those targets are sent again, as before marks existed.
/// - A job's `done` mark is written only after its outcome, token-invalid and dead records are acknowledged, so a
///   reader that skips the job loses none of them.
/// - The marks of jobs partition p go to progress partition p mod (progress partitions); the count is read with the
///   marks on assignment. Until it is known, nothing is written.
final class ProgressMarks: Sendable {
    /// The progress topic; marks are off when nil.
    let topic: String?
    /// Targets per answered mark.
    let chunk: Int
    private let producer: KafkaProducer
    private let reader: KafkaPartitionReader?
    private let lookback: Duration
    private let readTimeout: Duration
    private let readMaxBytes: Int
    private let clock: any WallClock
    private let logger: Logger
    private let counters: Counters
    private let progressPartitions = Atomic<Int>(0)
    private let index = LockedValue(ProgressIndex())

    /// The metrics of marks, exported at 0 from the start.
    private struct Counters: Sendable {
        let written: [PushProgress.Kind: Counter]
        let failed: Counter
        let reads: [String: Counter]
        let skippedJobs: Counter
        let reusedTargets: Counter

        init(_ registry: MetricsRegistry) {
            written = Dictionary(uniqueKeysWithValues: [PushProgress.Kind.answered, .done].map {
                ($0, registry.counter("apns_sender_progress_marks_total", help: "Progress marks produced, by kind", labels: ["kind": $0.rawValue]))
            })
            failed = registry.counter("apns_sender_progress_mark_failures_total",
                                      help: "Progress marks the broker did not take (those targets are sent again after a crash)")
            reads = Dictionary(uniqueKeysWithValues: ["complete", "incomplete", "failed"].map {
                ($0, registry.counter("apns_sender_progress_reads_total", help: "Reads of the progress marks after an assignment, by result",
                                      labels: ["result": $0]))
            })
            skippedJobs = registry.counter("apns_sender_progress_skipped_jobs_total",
                                           help: "Job messages read again whose marks said they were final: not sent again")
            reusedTargets = registry.counter("apns_sender_progress_reused_targets_total",
                                             help: "Targets of jobs read again whose marks gave their APNs answer: not sent again")
        }
    }

    init(configuration: SenderConfiguration, producer: KafkaProducer, registry: MetricsRegistry, logger: Logger,
         clock: any WallClock) throws {
        topic = configuration.progressTopic.isEmpty ? nil : configuration.progressTopic
        chunk = configuration.progressChunk
        self.producer = producer
        reader = try topic.map { _ in
            try KafkaPartitionReader(cluster: configuration.infrastructure.kafka, clientId: "apns-sender-progress-\(getpid())",
                                     logger: logger.child("progress"))
        }
        lookback = configuration.progressLookback
        readTimeout = configuration.progressReadTimeout
        readMaxBytes = configuration.progressReadMaxBytes
        self.clock = clock
        self.logger = logger
        counters = Counters(registry)
    }

    /// Marks on, and the progress topic's partition count known.
    var isWriting: Bool { topic != nil && progressPartitions.load(ordering: .relaxed) > 0 }

    /// Some targets of the job in `message` got a final answer: `accepted` (indices, ascending) and `refused`.
    func answered(_ message: KafkaMessage, job: PushJob, accepted: [Int], refused: [PushProgress.Refusal]) {
        guard !accepted.isEmpty || !refused.isEmpty else { return }
        write(.answered, message, job: job, claimsState: !accepted.isEmpty, accepted: PushProgress.ranges(of: accepted), refused: refused)
    }

    /// The message is final (its records acknowledged, or it was skipped); `job` when it was a job. `reachedDevices`:
    /// APNs accepted some of it (false for a job that expired unsent or was superseded): only then does the mark tell
    /// a reader that its state went out.
    func done(_ message: KafkaMessage, job: PushJob?, reachedDevices: Bool) {
        write(.done, message, job: job, claimsState: reachedDevices, accepted: [], refused: [])
    }

    /// Writes one mark. `claimsState`: APNs accepted some of the job (an answered mark with accepted targets, a done
    /// mark of a job that reached devices); only then does the mark carry the job's key, channel and `stateSeq`, which
    /// the reader puts into `SendOrder` and the channels' latest-wins.
    private func write(_ kind: PushProgress.Kind, _ message: KafkaMessage, job: PushJob?, claimsState: Bool, accepted: [Range<Int>],
                       refused: [PushProgress.Refusal]) {
        let partitions = progressPartitions.load(ordering: .relaxed)
        guard let topic, partitions > 0 else { return }
        let ordering = claimsState ? job : nil
        let orderKey = ordering.flatMap { SendOrder.isOrdered($0) ? message.keyString : nil }
        let channelId = ordering?.channel?.channelId
        let mark = PushProgress(kind: kind, jobsTopic: message.topic, partition: message.partition, offset: message.offset,
                                messageTimestamp: message.timestampMilliseconds, jobId: job?.jobId, orderKey: orderKey,
                                channelId: channelId, stateSeq: orderKey != nil || channelId != nil ? ordering?.stateSeq : nil,
                                accepted: accepted, refused: refused, at: Int64(clock.now().timeIntervalSince1970 * 1000))
        let outgoing = KafkaOutgoingMessage(
            topic: topic, key: Array(mark.key.utf8), value: PushProgressEncoder.encode(mark),
            partition: PushProgress.progressPartition(forJobsPartition: message.partition, progressPartitions: partitions))
        let counters = counters
        let refused = producer.produceWithoutWaiting(outgoing) { result in
            if case .failure = result { counters.failed.increment() } else { counters.written[kind]?.increment() }
        }
        if refused != nil { counters.failed.increment() }
    }

    /// The jobs partitions just assigned: their marks are kept from now on (call before `load`, on the rebalance).
    func assigned(_ partitions: [KafkaTopicPartition]) {
        guard topic != nil else { return }
        index.withLock { $0.assign(partitions) }
    }

    /// Reads the marks of the last `lookback` for `partitions` (jobs partitions just assigned) into the index, and
    /// returns the states the marks say reached devices (for `SendOrder` and the channels' latest-wins). Never throws:
    /// a failed or cut-short read is logged and counted, and those partitions' jobs are sent as they are.
    func load(_ partitions: [KafkaTopicPartition]) async -> [ProgressIndex.StateSent] {
        guard let topic, let reader, !partitions.isEmpty else { return [] }
        let started = ContinuousClock.now
        do {
            guard let count = try await reader.partitionCount(of: topic, timeout: readTimeout), count > 0 else {
                logger.warning("progress topic missing: jobs read again are sent whole", ["topic": topic])
                counters.reads["failed"]?.increment()
                return []
            }
            progressPartitions.store(count, ordering: .relaxed)
            let wanted = Set(partitions)
            let sources = Set(partitions.map {
                KafkaTopicPartition(topic: topic, partition: PushProgress.progressPartition(forJobsPartition: $0.partition, progressPartitions: count))
            })
            let read = try await reader.read(sources.sorted(), since: clock.now().addingTimeInterval(-lookback.seconds),
                                             maxBytes: readMaxBytes, timeout: readTimeout - (ContinuousClock.now - started))
            // Decoded outside the index's lock (the intake takes it for every message it reads).
            let decoded = read.messages.compactMap { message -> PushProgress? in
                guard let mark = try? MessageCodec.decode(PushProgress.self, from: message.value),
                      wanted.contains(KafkaTopicPartition(topic: mark.jobsTopic, partition: mark.partition)) else { return nil }
                return mark
            }
            var marks = 0
            var refused = 0
            var sent: [ProgressIndex.StateSent] = []
            index.withLock { index in
                for mark in decoded {
                    switch index.add(mark) {
                    case .kept:
                        marks += 1
                        if let state = ProgressIndex.StateSent(mark) { sent.append(state) }
                    case .notNeeded:
                        continue
                    case .refused:
                        refused += 1
                    }
                }
            }
            counters.reads[read.complete ? "complete" : "incomplete"]?.increment()
            logger.info("progress marks read", [
                "partitions": String(partitions.count), "messages": String(read.messages.count), "marks": String(marks),
                "unusable": String(refused), "complete": String(read.complete),
                "ms": String((ContinuousClock.now - started).wholeMilliseconds),
            ])
            return sent
        } catch {
            counters.reads["failed"]?.increment()
            logger.warning("progress marks not read: jobs read again are sent whole", ["error": "\(error)"])
            return []
        }
    }

    /// A message of the jobs topic was read. The first one of a partition after its assignment is where the group
    /// stood: nothing before it is read again, so its marks go.
    func noteRead(_ message: KafkaMessage) {
        guard topic != nil else { return }
        index.withLock { $0.noteRead(message) }
    }

    /// Forgets the marks of revoked partitions.
    func forget(_ partitions: [KafkaTopicPartition]) {
        let revoked = Set(partitions)
        index.withLock { $0.forget(revoked) }
    }

    /// What the marks say of `message` (taken once), counted as reused.
    func take(_ message: KafkaMessage) -> ProgressIndex.Entry? {
        guard topic != nil, let entry = index.withLock({ $0.take(message) }) else { return nil }
        if entry.done {
            counters.skippedJobs.increment()
        } else {
            counters.reusedTargets.increment(by: entry.accepted.count + entry.refused.count)
        }
        return entry
    }
}
