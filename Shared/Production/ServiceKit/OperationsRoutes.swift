import HTTPServer
import Runtime

/// `/health`, `/ready` and `/metrics`: the routes every service serves on its operations port.
public enum OperationsRoutes {
    /// Adds the three routes to `router` (without `/metrics` when `metrics` is nil: it is served on a
    /// separate listener).
    /// - `/health`: 200 `{"status":"ok","service":…}` while the process runs.
    /// - `/ready`: 200 when every readiness condition is met, otherwise 503 listing the unmet ones.
    /// - `/metrics`: the registry in Prometheus text format.
    public static func install(on router: inout Router, service: String, readiness: Readiness, metrics: MetricsRegistry?) {
        router.get("/health") { _ in
            .json(HealthBody(status: "ok", service: service))
        }
        router.get("/ready") { _ in
            let unmet = readiness.unmet
            if readiness.isReady {
                return .json(ReadyBody(status: "ready", service: service, waitingFor: []))
            }
            return .json(ReadyBody(status: "not_ready", service: service, waitingFor: unmet.isEmpty ? ["startup"] : unmet), status: 503)
        }
        guard let metrics else { return }
        router.get("/metrics") { _ in
            .text(metrics.render(), status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    struct HealthBody: Encodable {
        let status: String
        let service: String
    }

    struct ReadyBody: Encodable {
        let status: String
        let service: String
        let waitingFor: [String]
    }
}
