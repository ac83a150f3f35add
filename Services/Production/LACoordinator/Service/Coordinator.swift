import DeadLetter
import DeliveryRecord
import FanOut
import Kafka
import Postgres
import Runtime
import LiveActivities
import Matches
import ServiceKit

/// The la-coordinator's wiring: one producer, a consumer per topic (each in its own group, each exporting its own
/// `kafka_consumer_lag`), the fan-out executor and the two consume loops as services (``makeEventsLoop()``,
/// ``makeTokenInvalidLoop()``). `main.swift` lists them after the clients they use; the tests do the same.
public struct Coordinator: Sendable {
    let configuration: CoordinatorConfiguration
    let database: PostgresClient
    /// Jobs, dead letters: flushed after both loops stopped.
    public let producer: KafkaProducer
    public let eventsConsumer: KafkaConsumer
    public let tokenInvalidConsumer: KafkaConsumer
    /// `push.outcomes`, folded into the delivery record.
    public let outcomesConsumer: KafkaConsumer
    let logger: Logger
    let metrics: CoordinatorMetrics
    let clock: any WallClock
    /// Reads apns-sender's group progress for the overload rule (`PlainUpdateGate`).
    let senderProgress: SenderProgress

    /// Creates the Kafka clients (subscribing both consumers); opens no database connection yet.
    public init(configuration: CoordinatorConfiguration, database: PostgresClient, logger: Logger, registry: MetricsRegistry,
         clock: any WallClock = SystemWallClock()) throws {
        self.configuration = configuration
        self.database = database
        self.logger = logger
        self.clock = clock
        metrics = CoordinatorMetrics(registry: registry)
        let infrastructure = configuration.infrastructure
        producer = try KafkaProducer(configuration: infrastructure.producer(clientId: "la-coordinator", linger: .milliseconds(5)),
                                     logger: logger.child("kafka"), metrics: registry)
        eventsConsumer = try KafkaConsumer(
            configuration: Self.consumer(configuration, group: configuration.eventsGroup, topic: configuration.eventsTopic),
            logger: logger.child("kafka"), metrics: registry)
        senderProgress = SenderProgress(
            admin: try KafkaAdmin(configuration: infrastructure.admin(clientId: "la-coordinator-progress"), logger: logger.child("kafka")),
            group: configuration.senderGroup, topic: configuration.fanOut.topic, logger: logger)
        tokenInvalidConsumer = try KafkaConsumer(
            configuration: Self.consumer(configuration, group: configuration.tokenInvalidGroup, topic: configuration.tokenInvalidTopic),
            logger: logger.child("kafka"), metrics: registry)
        var outcomes = Self.consumer(configuration, group: configuration.recordGroup, topic: configuration.outcomesTopic)
        outcomes.autoOffsetReset = .earliest
        // Outcomes are up to ~200 kB each and wait while a fan-out is sent: prefetch about one batch, not 64 MB.
        outcomes.prefetchKilobytes = 8192
        outcomesConsumer = try KafkaConsumer(configuration: outcomes, logger: logger.child("kafka"), metrics: registry)
        recorderMetrics = DeliveryRecorderMetrics(registry: registry)
        recordDeferral = RecordDeferral(maximumDelay: configuration.recordMaximumDelay, progress: senderProgress, clock: clock)
    }

    /// Shared by the events loop (which tells it where its fan-outs' jobs are) and the delivery recorder (which waits).
    let recordDeferral: RecordDeferral

    let recorderMetrics: DeliveryRecorderMetrics

    private static func consumer(_ configuration: CoordinatorConfiguration, group: String, topic: String) -> KafkaConsumerConfiguration {
        configuration.infrastructure.consumer(clientId: "la-coordinator", groupId: group, topics: [topic])
    }

    var processor: EventBatchProcessor {
        var processor = EventBatchProcessor(
            executor: FanOutExecutor(database: database, producer: producer, settings: configuration.fanOut, clock: clock),
            activities: LiveActivityStore(database: database), matches: MatchStore(database: database), policy: configuration.policy, logger: logger, metrics: metrics)
        processor.deadLetters = deadLetters
        processor.recordDeferral = recordDeferral
        return processor
    }

    var tokenInvalidHandler: TokenInvalidHandler {
        var handler = TokenInvalidHandler(database: database, logger: logger, metrics: metrics)
        handler.deadLetters = deadLetters
        return handler
    }

    /// Parks undecodable `match.events` / `push.token-invalid` messages on `configuration.deadLetterTopic`.
    var deadLetters: DeadLetterPublisher {
        DeadLetterPublisher(producer: producer, metrics: metrics.registry, logger: logger, topic: configuration.deadLetterTopic,
                            clock: clock)
    }

    /// `match.events` in latest-wins batches (`MatchEventPipeline`), committed per batch up to the held updates:
    /// on graceful shutdown it finishes the batch in hand, sends what is held, commits and returns. When the member's
    /// assignment is lost mid-batch the batch is dropped and the loop goes back to polling (rejoining the group); the
    /// partitions' next owner re-fans those events out with the same job ids. Each call makes a new loop (with its
    /// own held updates): list it once.
    public func makeEventsLoop() -> KafkaConsumerService {
        let pipeline = MatchEventPipeline(processor: processor, gateSettings: configuration.plainUpdates, senderProgress: senderProgress,
                                          progressInterval: configuration.senderProgressInterval, metrics: metrics)
        return KafkaConsumerService("match-events", consumer: eventsConsumer, logger: logger,
                                    commits: .perBatchLatestWins(pipeline, maximumMessages: configuration.coalesceMaximumEvents,
                                                                 drainWait: configuration.coalesceWait))
    }

    /// `push.outcomes` folded into the delivery record a batch at a time (`DeliveryRecorder`): each batch written with its
    /// outcomes' identities in one transaction (exactly once), then committed. Each call makes a new loop: list it once.
    public func makeDeliveryRecordLoop() -> KafkaConsumerService {
        var recorder = DeliveryRecorder(store: DeliveryRecordStore(database: database), topic: configuration.outcomesTopic, deadLetters: deadLetters,
                                        metrics: recorderMetrics, logger: logger.child("delivery-record"))
        recorder.deferral = recordDeferral
        return KafkaConsumerService("delivery-record", consumer: outcomesConsumer, logger: logger,
                                    commits: .perBatchLatestWins(recorder, maximumMessages: configuration.recordMaximumOutcomes,
                                                                 drainWait: .milliseconds(20)))
    }

    /// `push.token-invalid` one message at a time: applied (retrying database failures with a bounded backoff,
    /// never skipping a readable message), then committed. Unreadable messages are counted, logged and committed.
    public func makeTokenInvalidLoop() -> KafkaConsumerService {
        let handler = tokenInvalidHandler
        return KafkaConsumerService("token-invalid", consumer: tokenInvalidConsumer, logger: logger, commits: .perMessage(failed: { [logger, metrics] error, message in
            metrics.failure("token_invalid")
            logger.error("token-invalid failed, retrying: \(error)",
                         ["event": "retry", "partition": String(message.partition), "offset": String(message.offset)])
        }, handle: { message in
            _ = try await handler.handle(message.value, source: message)
        }))
    }
}
