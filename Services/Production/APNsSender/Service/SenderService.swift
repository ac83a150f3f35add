import APNs
import Contracts
import DeadLetter
import Foundation
import Kafka
import Runtime
import ServiceKit

/// apns-sender's work: consume the jobs topic as group member, read up to `lookaheadJobs` ahead (`JobLookahead`:
/// priority 10 first, each device's states in order, superseded updates not sent — `SendOrder`), send up to
/// `maxInFlightJobs` jobs concurrently (plus up to `maxWaitingJobs` parked between retry rounds, see `JobSet`),
/// commit each partition's offsets in order once the jobs before them are final, and drain on shutdown (stop
/// polling, let in-flight jobs finish within the grace period, commit, close).
///
/// Readiness conditions: `kafka` (the group assigned partitions), `accepting_jobs` (false while
/// draining); main adds `apns_key` once the key has signed a provider token.
public final class SenderService: Sendable {
    let configuration: SenderConfiguration
    let client: any APNsTransport
    let logger: Logger
    let metrics: SenderMetrics
    let readiness: Readiness
    let clock: any WallClock
    /// How long one poll waits (short, so shutdown and free slots are noticed quickly).
    var pollTimeout: Duration { .milliseconds(100) }
    /// How often finished offsets are committed.
    var commitInterval: Duration { .milliseconds(100) }

    public init(
        configuration: SenderConfiguration, client: any APNsTransport, logger: Logger, metrics: MetricsRegistry, readiness: Readiness,
        clock: any WallClock = SystemWallClock()
    ) {
        self.configuration = configuration
        self.client = client
        self.logger = logger
        self.metrics = SenderMetrics(registry: metrics)
        self.readiness = readiness
        self.clock = clock
        readiness.set("kafka", false)
        readiness.set("accepting_jobs", true)
    }

    /// Runs until graceful shutdown is requested (then drains: no new jobs, in-flight ones finish)
    /// or the task is cancelled — by its `ServiceGroup` when the grace period is over, the one
    /// deadline: unfinished jobs are then abandoned uncommitted. Commits what is done and closes the
    /// consumer, the producer and the APNs client before returning, even when cancelled.
    /// - Throws: `KafkaError` when the consumer or producer cannot be created, or polling fails fatally.
    public func run() async throws {
        let tracker = CommitTracker()
        let lookahead = LockedValue(JobLookahead(capacity: configuration.lookaheadJobs))
        let changes = AsyncCondition<UInt64>(0)
        let bump: @Sendable () -> Void = { changes.update { $0 &+= 1 } }
        let consumer = try KafkaConsumer(
            configuration: consumerConfiguration(), logger: logger.child("kafka"), metrics: metrics.registry,
            onRebalance: { [readiness, tracker, logger] event in
                switch event {
                case .assigned(let partitions):
                    lookahead.withLock { $0.settle(until: .now + .seconds(1)) }
                    readiness.set("kafka", true)
                    logger.info("partitions assigned", ["partitions": partitions.map(\.description).joined(separator: ",")])
                case .revoked(let partitions, let lost):
                    _ = lookahead.withLock { $0.revoke(partitions) }
                    tracker.revoke(partitions)
                    if lost { readiness.set("kafka", false) }
                    logger.info("partitions revoked", ["count": String(partitions.count), "lost": String(lost)])
                case .failed(let error):
                    logger.warning("rebalance failed", ["error": error.description])
                }
            })
        var producerConfiguration = configuration.infrastructure.producer(clientId: "apns-sender-\(getpid())")
        producerConfiguration.linger = .milliseconds(2)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger.child("kafka"), metrics: metrics.registry)
        let processor = JobProcessor(
            client: client,
            publisher: ResultPublisher(
                producer: producer, tokenInvalidTopic: configuration.tokenInvalidTopic, deadTopic: configuration.deadTopic,
                logger: logger),
            scheduler: RetryScheduler(policy: configuration.retry, clock: clock), metrics: metrics, logger: logger)
        let deadLetters = DeadLetterPublisher(
            producer: producer, metrics: metrics.registry, logger: logger, topic: configuration.deadLetterTopic, clock: clock)
        let jobs = JobSet(limit: configuration.maxInFlightJobs, waitingLimit: configuration.maxWaitingJobs)
        let committer = KafkaOffsetCommitter(consumer: consumer, logger: logger)
        let background = startBackground(consumer: consumer, committer: committer, tracker: tracker)
        let probe = Task { [readiness, metrics, logger] in
            try? await DependencyProbe("kafka_broker", readiness: readiness, metrics: metrics.registry, logger: logger) {
                try await consumer.checkBroker()
            }.run()
        }
        logger.info("consuming", [
            "topic": configuration.jobsTopic, "group": configuration.groupID, "maxJobs": String(configuration.maxInFlightJobs),
            "maxWaitingJobs": String(configuration.maxWaitingJobs),
            "retryAttempts": String(configuration.retry.maxAttempts),
        ])

        var failure: (any Error)?
        do {
            let order = SendOrder(roundEnded: bump)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await self.intake(consumer: consumer, tracker: tracker, lookahead: lookahead, changes: changes)
                }
                group.addTask {
                    await self.dispatch(lookahead: lookahead, changes: changes, order: order, tracker: tracker, jobs: jobs,
                                        processor: processor, deadLetters: deadLetters)
                }
                // Both return once shutdown is requested (or the task is cancelled); a failing intake ends the group,
                // which cancels the dispatcher.
                try await group.waitForAll()
            }
        } catch {
            failure = error
            logger.error("consuming failed", ["error": "\(error)"])
        }

        // Drain: no new jobs; in-flight ones finish within the grace period or are left behind.
        readiness.set("accepting_jobs", false)
        logger.info("draining", ["inFlightJobs": String(jobs.count)])
        let drained = await jobs.wait(until: { $0.count == 0 })
        if !drained {
            logger.warning("grace period over; abandoning unfinished jobs (read again after restart)", ["jobs": String(jobs.count)])
            jobs.cancelAll()
        }
        // The clean-up runs even when this task was cancelled (a commit or close must not be
        // refused for that): in a task of its own, which the group's cancellation does not reach.
        await Task { [self] in
            _ = await jobs.wait(until: { $0.count == 0 }, timeout: .seconds(2))
            background.cancel()
            probe.cancel()
            await background.value
            await commitReady(committer: committer, tracker: tracker, now: true)
            do { try await consumer.close() } catch { logger.warning("consumer close failed", ["error": "\(error)"]) }
            do { try await producer.shutdown(timeout: .seconds(5)) } catch {
                logger.warning("producer shutdown failed", ["error": "\(error)"])
            }
            client.shutdown()
        }.value
        logger.info("drained", ["abandonedJobs": String(jobs.count), "uncommitted": String(tracker.pendingCount)])
        if let failure { throw failure }
    }

    /// Polls into the lookahead (while it has room) until shutdown or cancellation. Every message is `begin`-ed in
    /// the tracker as it is taken, so nothing after it is committed before its job is final.
    private func intake(consumer: KafkaConsumer, tracker: CommitTracker, lookahead: LockedValue<JobLookahead>,
                        changes: AsyncCondition<UInt64>) async throws {
        while !GracefulShutdown.isRequested && !Task.isCancelled {
            if !lookahead.withLock({ $0.hasRoom }) {
                let seen = changes.value
                _ = await changes.wait(until: { $0 != seen }, timeout: pollTimeout)
                continue
            }
            guard let message = try await consumer.poll(timeout: pollTimeout) else {
                if lookahead.withLock({ lookahead in
                    defer { lookahead.settled() }
                    return lookahead.settlingUntil != nil
                }) {
                    changes.update { $0 &+= 1 }
                }
                continue
            }
            // Taken after shutdown began: not begun, so it stays uncommitted for the next owner.
            guard !GracefulShutdown.isRequested, !Task.isCancelled else { break }
            tracker.begin(message.topicPartition, offset: message.offset)
            let entry = JobLookahead.Entry(message: message, incoming: JobIntake.classify(message), key: message.keyString ?? "")
            let counts = lookahead.withLock { lookahead -> [Int: Int] in
                lookahead.append(entry)
                return lookahead.countsByPriority
            }
            metrics.lookahead(counts)
            changes.update { $0 &+= 1 }
        }
    }

    /// Starts jobs from the lookahead while sending slots are free — priority 10 first, each key's states in order
    /// (`JobLookahead.takeNext`) — until shutdown is requested (draining starts no new job: what is read but not
    /// started stays uncommitted for the next owner) or the task is cancelled (when the intake stops).
    private func dispatch(lookahead: LockedValue<JobLookahead>, changes: AsyncCondition<UInt64>, order: SendOrder,
                          tracker: CommitTracker, jobs: JobSet, processor: JobProcessor, deadLetters: DeadLetterPublisher) async {
        while !Task.isCancelled && !GracefulShutdown.isRequested {
            let seen = changes.value
            if jobs.hasSlot, let (next, counts) = lookahead.withLock({ lookahead in
                lookahead.takeNext(order: order).map { ($0, lookahead.countsByPriority) }
            }) {
                metrics.lookahead(counts)
                if next.superseded, let job = next.entry.job {
                    // A newer state of its key is already read: its devices get that one.
                    metrics.superseded(priority: job.priority, count: job.targets.count)
                    metrics.targetsFinished("superseded", count: job.targets.count)
                    metrics.jobFinished("superseded")
                    tracker.finish(next.entry.message.topicPartition, offset: next.entry.message.offset)
                    continue
                }
                start(next.entry, order: order, tracker: tracker, jobs: jobs, processor: processor, deadLetters: deadLetters,
                      changes: changes)
                continue
            }
            if !jobs.hasSlot {
                _ = await jobs.wait(until: { $0.hasSlot }, timeout: pollTimeout)
            } else {
                // Settling after an assignment ends with a change (the intake caught up) or at its deadline.
                let settling = lookahead.withLock { $0.settlingUntil != nil }
                _ = await changes.wait(until: { $0 != seen }, timeout: settling ? .milliseconds(50) : pollTimeout)
            }
        }
    }

    /// Starts one entry's work as a job; its offset is finished in the tracker once the work is final.
    private func start(_ entry: JobLookahead.Entry, order: SendOrder, tracker: CommitTracker, jobs: JobSet,
                       processor: JobProcessor, deadLetters: DeadLetterPublisher, changes: AsyncCondition<UInt64>) {
        let message = entry.message
        let partition = message.topicPartition
        let done: @Sendable () -> Void = {
            tracker.finish(partition, offset: message.offset)
        }
        let ended: @Sendable () -> Void = { changes.update { $0 &+= 1 } }
        switch entry.incoming {
        case .job(let job):
            let key = entry.key
            jobs.start { slot in
                defer { ended() }
                if case .finished = await processor.process(job, key: key, order: order, slot: slot) { done() }
            }
        case .invalid(let job, let reason):
            metrics.rejected(kind: "invalid_job")
            logger.warning("invalid job dead-lettered", ["jobId": job.jobId, "reason": reason, "offset": String(message.offset)])
            jobs.start { _ in
                defer { ended() }
                if case .finished = await processor.deadLetter(job, reason: reason) { done() }
            }
        case .poison(let kind, let error, let jobID):
            metrics.rejected(kind: kind)
            logger.warning("unusable message skipped", [
                "kind": kind, "error": String(error.prefix(300)), "partition": partition.description,
                "offset": String(message.offset), "jobId": jobID ?? "",
            ])
            // Parked on the dead-letter topic (and, when it names a job, a rejected DeadPush on push.dead);
            // the offset is final only once both are acknowledged.
            let record = jobID.map {
                DeadPush.rejected(jobId: $0, source: .init(topic: message.topic, partition: message.partition,
                                                           offset: message.offset, kind: kind),
                                  error: error, diedAt: Int64(clock.now().timeIntervalSince1970 * 1000))
            }
            let publisher = processor.publisher
            let metrics = self.metrics
            jobs.start { _ in
                defer { ended() }
                do { try await deadLetters.publish(message, kind: kind, error: error) } catch { return }
                if let record {
                    guard let outgoing = try? publisher.dead(record), await publisher.publish([outgoing]) else { return }
                    metrics.deadProduced.increment()
                }
                done()
            }
        }
    }

    /// The committer (every `commitInterval`). The consumer exports its lag itself (`kafka_consumer_lag`, every
    /// `KAFKA_STATISTICS_INTERVAL_MS` of statistics).
    private func startBackground(consumer: KafkaConsumer, committer: KafkaOffsetCommitter, tracker: CommitTracker) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: commitInterval)
                await commitReady(committer: committer, tracker: tracker)
            }
        }
    }

    /// Hands the offsets that became final to the committer and commits them under its rules: a
    /// commit refused because the assignment is gone is dropped (the lost revocation then clears the
    /// tracker, late finishes are ignored, and the next owner sends those jobs again with the same
    /// apns-ids); other failures stay staged and are retried with back-off.
    private func commitReady(committer: KafkaOffsetCommitter, tracker: CommitTracker, now: Bool = false) async {
        // Read before taking: offsets of jobs begun before a rebalance that lands meanwhile are dropped.
        let generation = committer.consumer.assignmentGeneration
        committer.stage(tracker.takeCommittable(), polledIn: generation)
        await committer.commit(now: now)
    }

    private func consumerConfiguration() -> KafkaConsumerConfiguration {
        var consumer = configuration.infrastructure.consumer(
            clientId: "apns-sender-\(getpid())", groupId: configuration.groupID, topics: [configuration.jobsTopic])
        consumer.autoOffsetReset = .earliest
        consumer.prefetchKilobytes = configuration.prefetchKilobytes
        return consumer
    }
}
