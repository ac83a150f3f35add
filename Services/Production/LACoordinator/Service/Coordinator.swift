import DeadLetter
import FanOut
import Kafka
import Postgres
import Runtime
import LiveActivities
import Matches

/// The la-coordinator's wiring: one producer, a consumer per topic (each in its own group), the
/// fan-out executor and the three loops (events, token-invalid, lag). `main.swift` and the tests build it.
public struct Coordinator: Sendable {
    let configuration: CoordinatorConfiguration
    let database: PostgresClient
    public let producer: KafkaProducer
    public let eventsConsumer: KafkaConsumer
    let tokenInvalidConsumer: KafkaConsumer
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
        var producerConfiguration = infrastructure.producer(clientId: "la-coordinator")
        producerConfiguration.linger = .milliseconds(5)
        producer = try KafkaProducer(configuration: producerConfiguration, logger: logger.child("kafka"), metrics: registry)
        eventsConsumer = try KafkaConsumer(
            configuration: Self.consumer(configuration, group: configuration.eventsGroup, topic: configuration.eventsTopic),
            logger: logger.child("kafka"), metrics: registry)
        senderProgress = SenderProgress(
            admin: try KafkaAdmin(configuration: infrastructure.admin(clientId: "la-coordinator-progress"), logger: logger.child("kafka")),
            group: configuration.senderGroup, topic: configuration.fanOut.topic, logger: logger)
        tokenInvalidConsumer = try KafkaConsumer(
            configuration: Self.consumer(configuration, group: configuration.tokenInvalidGroup, topic: configuration.tokenInvalidTopic),
            logger: logger.child("kafka"), metrics: registry)
    }

    private static func consumer(_ configuration: CoordinatorConfiguration, group: String, topic: String) -> KafkaConsumerConfiguration {
        configuration.infrastructure.consumer(clientId: "la-coordinator", groupId: group, topics: [topic])
    }

    var processor: EventBatchProcessor {
        var processor = EventBatchProcessor(
            executor: FanOutExecutor(database: database, producer: producer, settings: configuration.fanOut, clock: clock),
            activities: LiveActivityStore(database: database), matches: MatchStore(database: database), policy: configuration.policy, logger: logger, metrics: metrics)
        processor.deadLetters = deadLetters
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

    /// Runs the two loops (each consumer exports its own `kafka_consumer_lag`) until cancelled (or one fails), then closes the Kafka clients.
    public func run() async throws {
        let events = EventLoop(consumer: eventsConsumer, processor: processor, maximumEvents: configuration.coalesceMaximumEvents,
                               drainWait: configuration.coalesceWait, gateSettings: configuration.plainUpdates,
                               senderProgress: senderProgress, progressInterval: configuration.senderProgressInterval,
                               logger: logger, metrics: metrics)
        let tokens = TokenInvalidLoop(consumer: tokenInvalidConsumer, handler: tokenInvalidHandler, logger: logger, metrics: metrics)
        let outcome: Result<Void, any Error>
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await events.run() }
                group.addTask { try await tokens.run() }
                // On graceful shutdown each loop finishes its batch and returns; an error in one
                // cancels the others (the group's scope ends by throwing).
                try await group.waitForAll()
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await eventsConsumer.close()
        try? await tokenInvalidConsumer.close()
        try? await producer.shutdown()
        try outcome.get()
    }
}
