import Foundation
import Kafka
import Poller
import Postgres
import Runtime
import ServiceKit

// poller: polls SportMonks livescores, publishes changed fixtures to sportmonks.fixtures and syncs the schedule
// into `matches` — as a singleton under a PostgreSQL advisory lock (standby replicas wait with /ready false).
// Live Activity management (orchestrator, rollover, channels, TTL sweep) runs in la-coordinator.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "poller") { try ServiceOptions(environment, defaultPort: 8081) }
let configuration = ServiceHost.loadConfiguration(service: "poller") { try PollerConfiguration(environment) }
let postgresConfiguration = ServiceHost.loadConfiguration(service: "poller") {
    try configuration.infrastructure.postgres(applicationName: "poller", poolSize: 4)
}
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "poller", error) }

let metricsRegistry = MetricsRegistry()
// Services in start order. On shutdown the poll and schedule loops are cancelled (each cycle is idempotent: an
// unfinished one is redone by the next leader) and the lock released, the producer flushes what they produced,
// the pool closes.
await ServiceHost.run(name: "poller", options: options, metrics: metricsRegistry) { context in
    try await configuration.infrastructure.verifyKafkaSettings(logger: context.logger)
    let database = PostgresClient(configuration: postgresConfiguration, logger: context.logger.child("postgres"),
                                  metrics: metricsRegistry)
    var producerConfiguration = configuration.infrastructure.producer(clientId: "poller")
    producerConfiguration.messageTimeout = .seconds(30)
    let producer = try KafkaProducer(configuration: producerConfiguration, logger: context.logger.child("kafka"), metrics: metricsRegistry)
    context.logger.info("configured", [
        "sportmonks": configuration.baseURL, "poll_interval_ms": String(configuration.pollInterval.wholeMilliseconds),
        "kafka": configuration.infrastructure.kafka.summary, "lock": configuration.lockName,
    ])
    let service = PollerService(
        configuration: configuration, database: database, producer: producer, clock: SystemWallClock(),
        sleeper: TaskSleeper(), random: { Double.random(in: 0..<1) }, metrics: PollerMetrics(registry: metricsRegistry),
        readiness: context.readiness, logger: context.logger)
    return [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("kafka-producer") { try? await producer.shutdown(timeout: .seconds(5)) },
        context.dependencyProbe("kafka_broker") { try await producer.checkBroker() },
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        service.service(),
    ]
}
