import PushComposition
import APNs
import Kafka
import LACoordinator
import Postgres
import Runtime
import Schema
import ServiceKit

// la-coordinator: consumes `match.events` (group LA_EVENTS_GROUP_ID, "la-coordinator") and fans each event out
// as Live Activity push jobs on `push.jobs`; consumes `push.token-invalid` (group LA_TOKEN_INVALID_GROUP_ID,
// "la-coordinator-token-invalid") and ends rows whose token APNs rejected; folds `push.outcomes` (group LA_RECORD_GROUP_ID,
// "la-coordinator-delivery-record") into the delivery record support reads (DeliveryRecorder); and, on one replica at a time (advisory
// lock LA_MANAGEMENT_LOCK_NAME), manages Live Activities' lives: the 30 s orchestrator (starts, re-starts, a new
// day's starts, the 8-hour rollover), the TTL sweep and, with BROADCAST_ENABLED, the broadcast channels with the
// APNs channel key (ActivityManager). Configuration: CoordinatorConfiguration (environment).
//
// Choices (see the types for details):
// - Batches (EventLoop, EventBatchProcessor): what is already fetched (up to LA_COALESCE_MAX_EVENTS) is one
//   batch; latest-wins drops plain updates older than a newer one of the same match, and a plain update that
//   would repeat the match's last push is skipped; key and end events are never dropped. Unreadable messages
//   go to the dead-letter topic.
// - Overload (PlainUpdateGate): a plain update of a match whose previous fan-out apns-sender (group
//   LA_SENDER_GROUP) is still sending is held (a newer one replaces it) for at least LA_PLAIN_UPDATE_SPACING_MS,
//   at most LA_PLAIN_UPDATE_MAX_HOLD_MS; key events and ends go at once.
// - One payload per event (EventPushPlan): aps.timestamp = emittedAt in seconds, stale-date = +STALE_AFTER_SECONDS
//   (BREAK_STALE_AFTER_SECONDS during a stoppage), end events carry dismissal-date = +DISMISS_AFTER_SECONDS (a
//   day's close of play +CLOSE_OF_PLAY_DISMISS_AFTER_SECONDS); over 4,096 bytes the state is trimmed in two steps
//   (counted in la_payload_trimmed_total); if even that fails the event is skipped (la_payload_unsendable_total).
// - Jobs (FanOutExecutor, composed by PushComposition.EventPushPlan; every push: docs/PUSHES.md): one broadcast job per APNs environment where the match has an active channel, then
//   the token-mode rows: ids "eventId:shard:chunk", key "matchId:shard", shard = PushSharding (FNV-1a 64 %
//   PUSH_SHARDS), ≤ 1,000 targets, rows streamed in primary-key order so a replay of the same rows gives the same
//   jobs and apns-ids. Priority 10 for key and end events, else 5. apns-expiration counts from job creation:
//   plain updates PUSH_EXPIRATION_SECONDS (120; a newer score replaces them), key events
//   KEY_PUSH_EXPIRATION_SECONDS (900), end pushes END_PUSH_EXPIRATION_SECONDS (3600: an undelivered end leaves
//   the activity up until stale).
// - Offsets are committed only after every kept event's jobs are acknowledged (and, for an end event, the rows
//   are ended), and never past a held plain update. On SIGTERM the events loop finishes the batch in hand,
//   sends the held updates and commits; a batch still unfinished when the grace period ends is cancelled,
//   redelivered and re-fanned out with the same job ids.
// - The match's end ends every row not yet ended (active and pending, and those waiting for the next day) after
//   the end jobs are acknowledged; a day's close of play ends them as day_end (a late one, after play resumed,
//   is not sent). A row activated between the stream and that update gets no end push and ends on the device
//   when stale.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "la-coordinator") { try ServiceOptions(environment, defaultPort: 8083) }
let configuration = ServiceHost.loadConfiguration(service: "la-coordinator") { try CoordinatorConfiguration(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "la-coordinator", error) }
let channelKey = ServiceHost.loadConfiguration(service: "la-coordinator") { try configuration.management.loadChannelKey() }

// Services in start order. On shutdown the management loops are cancelled and their lock released, the events
// loop finishes its batch, sends what it holds and commits, the token-invalid loop finishes its message and commits,
// the consumers leave their groups, the producer flushes, the channel client closes, the pool closes.
await ServiceHost.run(name: "la-coordinator", options: options) { context in
    let logger = context.logger
    try await configuration.infrastructure.verifyKafkaSettings(logger: logger)
    let database = PostgresClient(configuration: try configuration.infrastructure.postgres(applicationName: "la-coordinator", poolSize: 10),
                                  logger: logger.child("postgres"), metrics: context.metrics)
    _ = try await PostgresMigrator(database, logger: logger).apply(SightscreenMigrations.all)
    let coordinator = try Coordinator(configuration: configuration, database: database, logger: logger, registry: context.metrics)
    let channelClient = try configuration.management.makeChannelClient(
        key: channelKey, logger: logger.child("apns-channels"), metrics: context.metrics)
    let manager = ActivityManager(
        configuration: configuration.management, jobsTopic: configuration.fanOut.topic, database: database, producer: coordinator.producer,
        channelClient: channelClient, clock: SystemWallClock(), metrics: ActivityManagementMetrics(registry: context.metrics),
        logger: logger.child("management"))
    context.readiness.set("started", true)
    logger.info("consuming", [
        "events": configuration.eventsTopic, "token_invalid": configuration.tokenInvalidTopic,
        "jobs": configuration.fanOut.topic, "shards": String(configuration.fanOut.shards),
        "kafka": configuration.infrastructure.kafka.summary,
    ])
    return [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("apns-channels") { channelClient?.shutdown() },
        ResourceService("kafka-producer") { try? await coordinator.producer.shutdown() },
        ResourceService("kafka-consumer-events") { try? await coordinator.eventsConsumer.close() },
        ResourceService("kafka-consumer-token-invalid") { try? await coordinator.tokenInvalidConsumer.close() },
        ResourceService("kafka-consumer-outcomes") { try? await coordinator.outcomesConsumer.close() },
        context.dependencyProbe("kafka_broker") { try await coordinator.eventsConsumer.checkBroker() },
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        coordinator.makeTokenInvalidLoop(),
        coordinator.makeDeliveryRecordLoop(),
        coordinator.makeEventsLoop(),
        // Stops first: the management loops are idempotent and cancelled; the lock is released.
        manager.service(),
    ]
}
