import HTTPServer
import Kafka
import Postgres

/// One route of the api: method, pattern and handler. The table is the single source the router is
/// built from, and the OpenAPI test compares it with the hand-written document.
struct APIRoute: Sendable {
    let method: HTTPMethod
    let pattern: String
    /// Asked first, on the server's thread, for an answer at hand (see `HTTPImmediateHandler`); nil: none.
    var immediate: HTTPImmediateHandler? = nil
    let handler: HTTPHandler

    init(method: HTTPMethod, pattern: String, immediate: HTTPImmediateHandler? = nil, handler: @escaping HTTPHandler) {
        self.method = method
        self.pattern = pattern
        self.immediate = immediate
        self.handler = handler
    }
}

/// The api's routes, by resource.
public enum APIRoutes {
    /// Every api route (the operations routes /health /ready /metrics come from ServiceKit).
    static func all(_ service: APIService) -> [APIRoute] {
        FollowRoutes.routes(service) + ActivityRoutes.routes(service) + DeviceRoutes.routes(service)
            + MatchRoutes.routes(service) + AdminRoutes.routes(service) + SupportRoutes.routes(service) + [
                APIRoute(method: .get, pattern: "/app/config") { _ in .json(try await AppConfigStore(database: service.database).appConfig()) },
                APIRoute(method: .get, pattern: "/openapi.json") { _ in
                    HTTPResponse(status: 200, headers: [HTTPHeader(name: "Content-Type", value: "application/json")], body: OpenAPIDocument.bytes)
                },
            ]
    }

    /// Adds every api route to `router`, each answering 503 (with `Retry-After`) instead of 500 when
    /// PostgreSQL or the broker cannot be reached or does not answer in time: the request changed
    /// nothing that will not be redone, and the client should try again.
    public static func install(on router: inout Router, _ service: APIService) {
        for route in all(service) {
            let handler = route.handler
            router.add(route.method, route.pattern, immediate: route.immediate) { request in
                do {
                    return try await handler(request)
                } catch let error as PostgresError where error.isUnavailable {
                    service.logger.warning("database unavailable; answering 503", ["route": route.pattern, "error": error.description])
                    throw HTTPError.dependencyUnavailable("the database does not answer right now; retry")
                } catch let error as KafkaError where error.isRetriable {
                    service.logger.warning("broker unavailable; answering 503", ["route": route.pattern, "error": error.description])
                    throw HTTPError.dependencyUnavailable("the message broker does not answer right now; retry")
                }
            }
        }
    }
}

extension HTTPRequest {
    /// The body decoded as `T`, or nil when the body is empty (optional bodies).
    func decodeIfPresent<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T? {
        body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) ? nil : try decode(type)
    }
}
