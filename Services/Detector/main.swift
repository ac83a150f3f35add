import Contracts
import DeadLetter
import FeedHistory
import Detection
import Kafka
import Postgres
import Runtime
import Schema
import ServiceKit

// detector: consumes `sportmonks.fixtures` (group "detector"), keeps per-match state in `active_matches`,
// produces `MatchBusEvent`s to `match.events`. See Shared/Detection for the detection rules.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "detector") { try ServiceOptions(environment, defaultPort: 8082) }
let infrastructure = ServiceHost.loadConfiguration(service: "detector") { try InfrastructureOptions(environment) }
let groupId = environment.string("DETECTOR_GROUP_ID", default: "detector")
/// Matches whose last decoded rows are kept for reuse (≈ 0.3 MB per T20 match, a few MB for a Test).
let decodeCacheMatches = ServiceHost.loadConfiguration(service: "detector") {
    try environment.int("DETECTOR_DECODE_CACHE_MATCHES", default: 32, in: 1...10_000)
}
/// Matches whose deliveries are kept in memory (a match beyond it reads them from feed_balls at each snapshot):
/// more than this detector's live matches.
let chainMatches = ServiceHost.loadConfiguration(service: "detector") {
    try environment.int("DETECTOR_CHAIN_MATCHES", default: 256, in: 1...100_000)
}
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "detector", error) }

// Services in start order; on shutdown the loop finishes the snapshot in hand and commits it, the
// lag gauge stops, the consumer leaves the group, the producer flushes, the pool closes.
await ServiceHost.run(name: "detector", options: options) { context in
    let logger = context.logger
    let database = try PostgresClient(configuration: PostgresConfiguration(url: infrastructure.databaseURL),
                                      logger: logger.child("postgres"), metrics: context.metrics)
    _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
    let producer = try KafkaProducer(
        configuration: KafkaProducerConfiguration(bootstrapServers: infrastructure.kafkaBrokers, clientId: "detector"),
        logger: logger.child("kafka"), metrics: context.metrics)
    var consumerConfiguration = KafkaConsumerConfiguration(
        bootstrapServers: infrastructure.kafkaBrokers, clientId: "detector", groupId: groupId, topics: [Topic.fixtures.name])
    consumerConfiguration.sessionTimeout = infrastructure.kafkaSessionTimeout
    consumerConfiguration.heartbeatInterval = infrastructure.kafkaHeartbeatInterval
    consumerConfiguration.statisticsInterval = .seconds(5)  // feeds kafka_consumer_lag
    let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger.child("kafka"), metrics: context.metrics)
    let metrics = DetectorMetrics(registry: context.metrics)
    var handler = SnapshotHandler(detector: MatchDetector(), store: DetectorStateStore(client: database),
                                  history: FeedBallStore(database: database), publisher: KafkaMatchEventPublisher(producer: producer), logger: logger, metrics: metrics)
    handler.reuseCaches = SnapshotReuseCaches(capacity: decodeCacheMatches)
    handler.chains = BallChains(capacity: chainMatches)
    handler.deadLetters = DeadLetterPublisher(producer: producer, metrics: context.metrics, logger: logger)
    context.readiness.set("started", true)
    logger.info("consuming", ["topic": Topic.fixtures.name, "group": groupId, "kafka": infrastructure.kafkaBrokers])
    let registry = context.metrics
    let loop = DetectorLoop(consumer: consumer, handler: handler, logger: logger, metrics: metrics)
    return [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("kafka-producer") { try? await producer.shutdown() },
        ResourceService("kafka-consumer") { try? await consumer.close() },
        context.dependencyProbe("kafka_broker") { try await consumer.checkBroker() },
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        ClosureService("consumer-lag", cancelOnShutdown: true) {
            await ConsumerLagGauge(registry: registry).run(consumers: [consumer], every: .seconds(5))
        },
        ClosureService("detector-loop") { try await loop.run() },
    ]
}
