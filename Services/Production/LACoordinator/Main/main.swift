import Kafka
import LACoordinator
import Postgres
import Runtime
import Schema
import ServiceKit

// la-coordinator: consumes `match.events` (group "la-coordinator") and fans each event out as sharded
// Live Activity push jobs on `push.jobs`; consumes `push.token-invalid` (group "la-coordinator-token-invalid")
// and ends rows whose token APNs rejected. Configuration: CoordinatorConfiguration (environment).
//
// Choices (see the types for details):
// - One payload per event (EventPushPlan): aps.timestamp = emittedAt in seconds, stale-date = +STALE_AFTER_SECONDS,
//   end events carry dismissal-date = +DISMISS_AFTER_SECONDS; over 4,096 bytes the state is trimmed in two steps
//   (counted in la_payload_trimmed_total); if even that fails the event is skipped (la_payload_unsendable_total).
// - Jobs: "eventId:shard:chunk", key "matchId:shard", shard = PushSharding (FNV-1a 64 % PUSH_SHARDS), ≤ 1,000
//   targets, rows streamed in primary-key order so a replay of the same rows gives the same jobs and apns-ids.
//   Priority 10 for key and end events, else 5. apns-expiration counts from job creation: plain updates
//   PUSH_EXPIRATION_SECONDS (120; a newer score replaces them), key events KEY_PUSH_EXPIRATION_SECONDS (900),
//   end pushes END_PUSH_EXPIRATION_SECONDS (3600: an undelivered end leaves the activity up until stale).
// - Offsets are committed per batch only after every kept event's jobs are acknowledged (and, for an end
//   event, the rows are ended). On SIGTERM the loops finish the batch in hand and commit it; a batch still
//   unfinished when the grace period ends is cancelled, redelivered and re-fanned out with the same job ids.
// - Match end ends every not-yet-ended row (active and pending) after the end jobs are acknowledged; a row
//   activated between the stream and that update gets no end push and ends on the device when stale.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "la-coordinator") { try ServiceOptions(environment, defaultPort: 8083) }
let configuration = ServiceHost.loadConfiguration(service: "la-coordinator") { try CoordinatorConfiguration(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "la-coordinator", error) }

// Services in start order. On shutdown the events loop finishes its batch, sends what it holds and commits, the
// token-invalid loop finishes its message and commits, the consumers leave their groups, the producer flushes,
// the pool closes.
await ServiceHost.run(name: "la-coordinator", options: options) { context in
    let logger = context.logger
    try await configuration.infrastructure.verifyKafkaSettings(logger: logger)
    let database = PostgresClient(configuration: try configuration.infrastructure.postgres(applicationName: "la-coordinator", poolSize: 10),
                                  logger: logger.child("postgres"), metrics: context.metrics)
    _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
    let coordinator = try Coordinator(configuration: configuration, database: database, logger: logger, registry: context.metrics)
    context.readiness.set("started", true)
    logger.info("consuming", [
        "events": configuration.eventsTopic, "token_invalid": configuration.tokenInvalidTopic,
        "jobs": configuration.fanOut.topic, "shards": String(configuration.fanOut.shards),
        "kafka": configuration.infrastructure.kafka.summary,
    ])
    return [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("kafka-producer") { try? await coordinator.producer.shutdown() },
        ResourceService("kafka-consumer-events") { try? await coordinator.eventsConsumer.close() },
        ResourceService("kafka-consumer-token-invalid") { try? await coordinator.tokenInvalidConsumer.close() },
        context.dependencyProbe("kafka_broker") { try await coordinator.eventsConsumer.checkBroker() },
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        coordinator.makeTokenInvalidLoop(),
        coordinator.makeEventsLoop(),
    ]
}
