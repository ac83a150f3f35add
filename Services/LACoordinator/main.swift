import Kafka
import Postgres
import Runtime
import Schema
import ServiceKit

// la-coordinator: consumes `match.events` (group "la-coordinator") and fans each event out as sharded
// Live Activity push jobs on `push.jobs`; consumes `push.token-invalid` (group "la-coordinator-token-invalid")
// and ends rows whose token APNs rejected. Configuration: CoordinatorConfiguration (environment).
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "la-coordinator") { try ServiceOptions(environment, defaultPort: 8083) }
let configuration = ServiceHost.loadConfiguration(service: "la-coordinator") { try CoordinatorConfiguration(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "la-coordinator", error) }

await ServiceHost.run(name: "la-coordinator", options: options) { context in
    let logger = context.logger
    let database = PostgresClient(configuration: try PostgresConfiguration(url: configuration.infrastructure.databaseURL),
                                  logger: logger.child("postgres"), metrics: context.metrics)
    _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
    let coordinator = try Coordinator(configuration: configuration, database: database, logger: logger, registry: context.metrics)
    context.readiness.set("started", true)
    logger.info("consuming", [
        "events": configuration.eventsTopic, "token_invalid": configuration.tokenInvalidTopic,
        "jobs": configuration.fanOut.topic, "shards": String(configuration.fanOut.shards),
        "kafka": configuration.infrastructure.kafkaBrokers,
    ])
    let loops = Task { try await coordinator.run() }
    let stop = Task {
        _ = await context.shutdown.wait()
        loops.cancel()
    }
    defer { stop.cancel() }
    do {
        try await loops.value
    } catch is CancellationError {
    }
    await database.shutdown()
}
