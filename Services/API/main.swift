import Kafka
import Runtime
import ServiceKit

// api: the iOS app's HTTP API.
// Its pipeline work arrives with its own issue; today it starts, reads its configuration,
// checks librdkafka, serves /health, /ready and /metrics and stops cleanly on SIGTERM.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "api") { try ServiceOptions(environment, defaultPort: 8080) }
let infrastructure = ServiceHost.loadConfiguration(service: "api") { try InfrastructureOptions(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "api", error) }

await ServiceHost.run(name: "api", options: options) { context in
    context.logger.info("configured", ["kafka": infrastructure.kafkaBrokers])
    context.readiness.set("started", true)
    _ = await context.shutdown.wait()
}
