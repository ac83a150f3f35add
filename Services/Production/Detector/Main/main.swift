import Contracts
import Detector
import Kafka
import Postgres
import Runtime
import Schema
import ServiceKit

// detector: consumes `sportmonks.fixtures` (group "detector"), keeps per-match state in `active_matches`,
// produces `MatchBusEvent`s to `match.events`. See Shared/Detection for the detection rules.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "detector") { try ServiceOptions(environment, defaultPort: 8082) }
let configuration = ServiceHost.loadConfiguration(service: "detector") { try DetectorConfiguration(environment) }
let infrastructure = configuration.infrastructure
let groupId = configuration.groupId
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "detector", error) }

// Services in start order; on shutdown the loop finishes the snapshot in hand and commits it, the
// readiness probes stop, the consumer leaves the group, the producer flushes, the pool closes.
await ServiceHost.run(name: "detector", options: options) { context in
    let logger = context.logger
    try await infrastructure.verifyKafkaSettings(logger: logger)
    let database = try PostgresClient(configuration: infrastructure.postgres(applicationName: "detector", poolSize: 10),
                                      logger: logger.child("postgres"), metrics: context.metrics)
    _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
    let producer = try KafkaProducer(
        configuration: infrastructure.producer(clientId: "detector"),
        logger: logger.child("kafka"), metrics: context.metrics)
    let consumerConfiguration = infrastructure.consumer(clientId: "detector", groupId: groupId, topics: [Topic.fixtures.name])
    let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger.child("kafka"), metrics: context.metrics)
    let service = DetectorService(configuration: configuration, database: database, producer: producer, consumer: consumer,
                                  registry: context.metrics, logger: logger)
    context.readiness.set("started", true)
    logger.info("consuming", ["topic": Topic.fixtures.name, "group": groupId, "kafka": infrastructure.kafka.summary])
    return [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("kafka-producer") { try? await producer.shutdown() },
        ResourceService("kafka-consumer") { try? await consumer.close() },
        context.dependencyProbe("kafka_broker") { try await consumer.checkBroker() },
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        service.loop,
    ]
}
