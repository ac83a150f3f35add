import Kafka
import Runtime
import ServiceKit

// poller: polls SportMonks, publishes fixture snapshots, runs the MatchOrchestrator.
// Its pipeline work arrives with its own issue; today it starts, reads its configuration,
// checks librdkafka, serves /health, /ready and /metrics and stops cleanly on SIGTERM.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "poller") { try ServiceOptions(environment, defaultPort: 8081) }
let infrastructure = ServiceHost.loadConfiguration(service: "poller") { try InfrastructureOptions(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "poller", error) }

await ServiceHost.run(name: "poller", options: options) { context in
    context.logger.info("configured", ["kafka": infrastructure.kafkaBrokers])
    context.readiness.set("started", true)
    _ = await context.shutdown.wait()
}
