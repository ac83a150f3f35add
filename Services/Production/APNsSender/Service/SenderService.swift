import APNs
import Contracts
import DeadLetter
import Foundation
import Kafka
import Runtime
import ServiceKit

/// apns-sender's wiring: consume the jobs topic as group member, read up to `lookaheadJobs` ahead (`JobLookahead`:
/// priority 10 first, each device's states in order, superseded updates not sent — `SendOrder`), send up to
/// `maxInFlightJobs` jobs concurrently (plus up to `maxWaitingJobs` parked between retry rounds, see `JobSet`),
/// commit each partition's offsets in order once the jobs before them are final, and drain on shutdown.
///
/// Two services do the work, listed by main after the clients they use: ``intake``, the jobs topic's consume loop
/// (`KafkaConsumerService` with the `.outOfOrder` policy: reads into the read-ahead, commits what the
/// `CommitTracker` says is final every 100 ms) and ``dispatcher`` (`JobDispatcher`: starts the jobs). Listed
/// intake first, the dispatcher stops first on shutdown — no new job, in-flight ones finish within the grace period —
/// then the intake stops polling and commits; then the consumer closes, the producer flushes, the APNs client
/// shuts down.
///
/// Readiness conditions: `kafka` (the group assigned partitions), `accepting_jobs` (false while
/// draining); main adds `apns_key` once the key has signed a provider token.
public final class SenderService: Sendable {
    let configuration: SenderConfiguration
    /// The APNs connections: shut down after both services stopped.
    public let client: any APNsTransport
    /// The jobs topic's consumer: closed after both services stopped.
    public let consumer: KafkaConsumer
    /// Token-invalid records, dead pushes and dead letters: flushed after both services stopped.
    public let producer: KafkaProducer
    /// Progress marks (nil when they are off): flushed after both services stopped.
    let markProducer: KafkaProducer?
    /// The jobs topic's consume loop (`.outOfOrder` commits).
    public let intake: KafkaConsumerService
    /// Starts jobs from the read-ahead; drains on shutdown.
    public let dispatcher: any Service
    let logger: Logger

    /// Creates the consumer (subscribed), the producer and the two services.
    /// - Throws: `KafkaError` when the consumer or producer cannot be created.
    public init(
        configuration: SenderConfiguration, client: any APNsTransport, logger: Logger, metrics registry: MetricsRegistry, readiness: Readiness,
        clock: any WallClock = SystemWallClock()
    ) throws {
        self.configuration = configuration
        self.client = client
        self.logger = logger
        let metrics = SenderMetrics(registry: registry)
        readiness.set("kafka", false)
        readiness.set("accepting_jobs", true)
        let tracker = CommitTracker()
        producer = try KafkaProducer(configuration: configuration.infrastructure.producer(clientId: "apns-sender-\(getpid())", linger: .milliseconds(2)),
                                     logger: logger.child("kafka"), metrics: registry)
        // Marks go through a producer of their own, made cheap per message: a lost or repeated mark only costs a push
        // sent again (never a loss), so it needs neither idempotence nor every replica's acknowledgement, and its ~200
        // bytes gain nothing from compression. On the job's producer each mark cost the broker thread a batch of its own.
        var markConfiguration = configuration.infrastructure.producer(clientId: "apns-sender-marks-\(getpid())", linger: .milliseconds(2))
        markConfiguration.compression = .none
        markConfiguration.additional.merge(["enable.idempotence": "false", "acks": "1"]) { _, new in new }
        markProducer = configuration.progressTopic.isEmpty ? nil
            : try KafkaProducer(configuration: markConfiguration, logger: logger.child("kafka"), metrics: registry)
        let marks = try ProgressMarks(configuration: configuration, producer: markProducer ?? producer, registry: registry, logger: logger,
                                      clock: clock)
        let readAhead = JobReadAhead(capacity: configuration.lookaheadJobs, metrics: metrics, marks: marks)
        let order = SendOrder(endedMemory: configuration.endedMemory, roundEnded: { readAhead.bump() })
        let coalescer = BroadcastCoalescer()
        consumer = try KafkaConsumer(
            configuration: Self.consumerConfiguration(configuration), logger: logger.child("kafka"), metrics: registry,
            onRebalance: { [readiness, tracker, logger] event in
                switch event {
                case .assigned(let partitions):
                    let loadsMarks = marks.topic != nil && !partitions.isEmpty
                    readAhead.lookahead.withLock { lookahead in
                        lookahead.settle(until: .now + .seconds(1))
                        if loadsMarks { lookahead.beginLoadingMarks() }
                    }
                    readiness.set("kafka", true)
                    logger.info("partitions assigned", ["partitions": partitions.map(\.description).joined(separator: ",")])
                    // Nothing starts until the marks of the new partitions are read (at most progressReadTimeout).
                    if loadsMarks {
                        marks.assigned(partitions)
                        Task {
                            // The states the marks say reached devices: an older state of the same key or channel,
                            // read again, is not sent after them.
                            for state in await marks.load(partitions) {
                                switch state {
                                case .key(let key, let stateSeq): order.noteSent(stateSeq: stateSeq, key: key)
                                case .channel(let channel, let stateSeq): coalescer.taken(stateSeq: stateSeq, channelId: channel)
                                }
                            }
                            // Settle again: a job of a key starts only after the intake has read that key's newer
                            // states, some of which the marks may now skip (an empty poll ends it at once).
                            readAhead.lookahead.withLock { lookahead in
                                lookahead.endLoadingMarks()
                                lookahead.settle(until: .now + .seconds(1))
                            }
                            readAhead.bump()
                        }
                    }
                case .revoked(let partitions, let lost):
                    _ = readAhead.lookahead.withLock { $0.revoke(partitions) }
                    tracker.revoke(partitions)
                    marks.forget(partitions)
                    if lost { readiness.set("kafka", false) }
                    logger.info("partitions revoked", ["count": String(partitions.count), "lost": String(lost)])
                case .failed(let error):
                    logger.warning("rebalance failed", ["error": error.description])
                }
            })
        let processor = JobProcessor(
            client: client,
            publisher: ResultPublisher(
                producer: producer, tokenInvalidTopic: configuration.tokenInvalidTopic, deadTopic: configuration.deadTopic,
                outcomesTopic: configuration.outcomesTopic, logger: logger),
            scheduler: RetryScheduler(policy: configuration.retry, clock: clock), metrics: metrics, logger: logger, coalescer: coalescer)
        intake = KafkaConsumerService("job-intake", consumer: consumer, logger: logger, commits: .outOfOrder(tracker, intake: readAhead))
        dispatcher = JobDispatcher(
            readAhead: readAhead, order: order, tracker: tracker,
            jobs: JobSet(limit: configuration.maxInFlightJobs, waitingLimit: configuration.maxWaitingJobs), processor: processor, marks: marks,
            deadLetters: DeadLetterPublisher(
                producer: producer, metrics: registry, logger: logger, topic: configuration.deadLetterTopic, clock: clock),
            metrics: metrics, readiness: readiness, logger: logger, clock: clock)
        logger.info("consuming", [
            "topic": configuration.jobsTopic, "group": configuration.groupID, "maxJobs": String(configuration.maxInFlightJobs),
            "maxWaitingJobs": String(configuration.maxWaitingJobs),
            "retryAttempts": String(configuration.retry.maxAttempts),
        ])
    }

    /// Closes the consumer (leaving the group), logging a failure.
    public func closeConsumer() async {
        do { try await consumer.close() } catch { logger.warning("consumer close failed", ["error": "\(error)"]) }
    }

    /// Flushes and closes the producers (at most 5 s each), logging a failure.
    public func shutdownProducer() async {
        do { try await producer.shutdown(timeout: .seconds(5)) } catch { logger.warning("producer shutdown failed", ["error": "\(error)"]) }
        do { try await markProducer?.shutdown(timeout: .seconds(5)) } catch {
            logger.warning("progress mark producer shutdown failed", ["error": "\(error)"])
        }
    }

    private static func consumerConfiguration(_ configuration: SenderConfiguration) -> KafkaConsumerConfiguration {
        var consumer = configuration.infrastructure.consumer(
            clientId: "apns-sender-\(getpid())", groupId: configuration.groupID, topics: [configuration.jobsTopic])
        consumer.autoOffsetReset = .earliest
        consumer.prefetchKilobytes = configuration.prefetchKilobytes
        return consumer
    }
}
