import APNs
import APNsSender
import Kafka
import Runtime
import ServiceKit

// apns-sender: consumes push.jobs and sends each job's payload to its targets over APNs HTTP/2;
// TokenInvalid → push.token-invalid, dead letters → push.dead; offsets committed per partition in
// order once every target of a job (and of every earlier job) has a final answer.
// Configuration: see SenderConfiguration (APNS_*, APNS_SENDER_*, KAFKA_*, HTTP_PORT, SHUTDOWN_GRACE_MS).
let service = "apns-sender"
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: service) { try ServiceOptions(environment, defaultPort: 8084) }
let configuration = ServiceHost.loadConfiguration(service: service) {
    try SenderConfiguration(environment, shutdownGrace: options.shutdownGrace)
}
let key = ServiceHost.loadConfiguration(service: service) { try configuration.loadKey() }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: service, error) }

let metrics = MetricsRegistry()
// Services in start order. On shutdown the dispatcher starts no new job and lets in-flight ones finish within the
// grace period, the intake stops polling and commits what is final, the consumer leaves the group, the producer
// flushes, the APNs client closes its connections.
await ServiceHost.run(name: service, options: options, metrics: metrics) { context in
    try await configuration.infrastructure.verifyKafkaSettings(logger: context.logger)
    let client = try configuration.makeClient(key: key, logger: context.logger, metrics: metrics, clock: SystemWallClock())
    // Mint the provider token once now: a key that cannot sign fails here, not on the first job.
    _ = try client.tokens.token()
    context.logger.info("configured", [
        "kafka": configuration.infrastructure.kafka.summary, "production": "\(configuration.production.host):\(configuration.production.port)",
        "sandbox": "\(configuration.sandbox.host):\(configuration.sandbox.port)", "teamId": configuration.teamID,
        "keyId": configuration.keyID, "bundleId": configuration.bundleID, "connections": String(configuration.connections),
    ])
    let sender = try SenderService(
        configuration: configuration, client: client, logger: context.logger, metrics: metrics, readiness: context.readiness)
    context.readiness.set("apns_key", true)
    return [
        ResourceService("apns-client") { client.shutdown() },
        ResourceService("kafka-producer") { await sender.shutdownProducer() },
        ResourceService("kafka-consumer") { await sender.closeConsumer() },
        context.dependencyProbe("kafka_broker") { try await sender.consumer.checkBroker() },
        sender.intake,
        sender.dispatcher,
    ]
}
