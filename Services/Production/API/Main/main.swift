import API
import Auth
import Foundation
import HTTPServer
import Kafka
import Postgres
import Runtime
import ServiceKit

// api: the iOS app's only server (follows, Live Activity tokens, devices, schedule, live matches,
// admin). Configuration: see APIConfiguration (AUTH_*, PUSH_*, API_*, LIVE_*, FAKE_SPORTMONKS_*)
// plus HTTP_PORT (8080), KAFKA_BROKERS and DATABASE_URL.
let serviceName = "api"
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: serviceName) { try ServiceOptions(environment, defaultPort: 8080, defaultMetricsPort: 9464) }
var configuration = ServiceHost.loadConfiguration(service: serviceName) { try APIConfiguration(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: serviceName, error) }
if configuration.keySet.keys.isEmpty, let url = configuration.jwksURL {
    // AUTH_JWKS_URL alone: the first keys come from it (a few tries; without keys no user could be served).
    var lastError: (any Error)?
    for attempt in 1...5 where configuration.keySet.keys.isEmpty {
        do { configuration.keySet = try await JWKSRefresher.fetchKeySet(url) } catch {
            lastError = error
            if attempt < 5 { try? await Task.sleep(for: .seconds(2)) }
        }
    }
    if configuration.keySet.keys.isEmpty, let lastError {
        ServiceHost.failStart(service: serviceName, ConfigurationError.invalid(
            variable: "AUTH_JWKS_URL", value: url.absoluteString, expected: "a reachable JWKS (\(lastError))"))
    }
}

let metrics = MetricsRegistry()
let logger = Logger(label: serviceName, minimumLevel: options.logLevel)
let service: APIService
let producer: KafkaProducer
let database: PostgresClient
do {
    database = PostgresClient(
        configuration: try configuration.infrastructure.postgres(applicationName: serviceName, poolSize: configuration.databasePoolSize),
        logger: logger.child("postgres"), metrics: metrics)
    producer = try KafkaProducer(
        configuration: configuration.infrastructure.producer(clientId: serviceName, linger: configuration.kafkaLinger),
        logger: logger.child("kafka"), metrics: metrics)
    let admin = try KafkaAdmin(
        configuration: configuration.infrastructure.admin(clientId: "api-admin"),
        logger: logger.child("kafka-admin"))
    service = try APIService(
        configuration: configuration, database: database, producer: producer, admin: admin, clock: SystemWallClock(),
        logger: logger, metrics: metrics)
} catch {
    ServiceHost.failStart(service: serviceName, error)
}

// Services in start order; the group stops them last first: HTTP drains (requests still reach the
// pool and the producer), the readiness probe stops, the producer flushes, the pool closes.
await ServiceHost.run(name: serviceName, options: options, metrics: metrics, routes: { router, _ in
    APIRoutes.install(on: &router, service)
}) { context in
    try await configuration.infrastructure.verifyKafkaSettings(logger: context.logger)
    context.logger.info("configured", [
        "kafka": configuration.infrastructure.kafka.summary, "jobsTopic": configuration.pushJobsTopic,
        "issuer": configuration.verifier.issuer, "keys": String(configuration.keySet.keys.count),
    ])
    var services: [any Service] = [
        ResourceService("postgres") { await database.shutdown() },
        ResourceService("kafka-producer") { try? await producer.shutdown(timeout: .seconds(5)) },
        // Ready while PostgreSQL answers (re-checked every 2 s). The broker is watched too
        // (dependency_up) but does not take the api out of rotation: schedules, scores and
        // follows of upcoming matches need only PostgreSQL, and a follow that must queue push
        // jobs answers 503 by itself. Every replica failing /ready together would turn a broker
        // stall into a full api outage.
        context.dependencyProbe("postgres") { _ = try await database.healthCheck() },
        context.dependencyProbe("kafka_broker", drivesReadiness: false) { try await producer.checkBroker() },
    ]
    if let refresher = service.jwksRefresher {
        services.append(ClosureService("jwks-refresher", cancelOnShutdown: true) { await refresher.run() })
    }
    return services
}
