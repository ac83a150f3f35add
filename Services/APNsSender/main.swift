import Kafka
import Runtime
import ServiceKit

// apns-sender: sends push jobs to APNs over HTTP/2.
// Its pipeline work arrives with its own issue; today it starts, reads its configuration,
// checks librdkafka, serves /health, /ready and /metrics and stops cleanly on SIGTERM.
let environment = EnvironmentReader()
let options = ServiceHost.loadConfiguration(service: "apns-sender") { try ServiceOptions(environment, defaultPort: 8084) }
let infrastructure = ServiceHost.loadConfiguration(service: "apns-sender") { try InfrastructureOptions(environment) }
do { try KafkaLibrary.requireMinimumVersion() } catch { ServiceHost.failStart(service: "apns-sender", error) }

await ServiceHost.run(name: "apns-sender", options: options) { context in
    context.logger.info("configured", ["kafka": infrastructure.kafkaBrokers])
    context.readiness.set("started", true)
    _ = await context.shutdown.wait()
}
