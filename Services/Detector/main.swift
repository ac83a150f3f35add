import Kafka
import Runtime
import ServiceKit

// detector: turns fixture snapshots into match events and display states.
// Its pipeline work arrives with its own issue; today it starts, reads its configuration,
// checks librdkafka, serves /health, /ready and /metrics and stops cleanly on SIGTERM.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "detector") { try ServiceOptions(environment, defaultPort: 8082) }
let infrastructure = ServiceHost.loadConfiguration(service: "detector") { try InfrastructureOptions(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "detector", error) }

await ServiceHost.run(name: "detector", options: options) { context in
    context.logger.info("configured", ["kafka": infrastructure.kafkaBrokers])
    context.readiness.set("started", true)
    _ = await context.shutdown.wait()
}
