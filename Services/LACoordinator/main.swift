import Kafka
import Runtime
import ServiceKit

// la-coordinator: fans match events out as sharded Live Activity push jobs.
// Its pipeline work arrives with its own issue; today it starts, reads its configuration,
// checks librdkafka, serves /health, /ready and /metrics and stops cleanly on SIGTERM.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "la-coordinator") { try ServiceOptions(environment, defaultPort: 8083) }
let infrastructure = ServiceHost.loadConfiguration(service: "la-coordinator") { try InfrastructureOptions(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "la-coordinator", error) }

await ServiceHost.run(name: "la-coordinator", options: options) { context in
    context.logger.info("configured", ["kafka": infrastructure.kafkaBrokers])
    context.readiness.set("started", true)
    _ = await context.shutdown.wait()
}
