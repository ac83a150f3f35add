import Runtime

/// Answers one request. Throw `HTTPError` for client errors; any other error becomes a 500.
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse

/// Answers one request at once, on the server thread that read it, or returns nil to leave it to the route's
/// `HTTPHandler`. It runs on the thread that serves every connection of its event loop, so it must not block,
/// wait or do much: it is for answers already at hand (a cached body behind a cached token check), which it
/// spares two thread hops (to the task pool and back). A thrown `HTTPError` is the answer.
public typealias HTTPImmediateHandler = @Sendable (HTTPRequest) throws(HTTPError) -> HTTPResponse?

/// The rest of the chain as seen by a middleware. It never throws: errors thrown further in are already
/// rendered as JSON error responses, so a middleware sees every status (useful for metrics).
public typealias HTTPNext = @Sendable (HTTPRequest) async -> HTTPResponse

/// Wraps every request: inspect or change the request, call `next`, inspect or change the response,
/// or answer (or throw `HTTPError`) without calling `next`.
public typealias HTTPMiddleware = @Sendable (HTTPRequest, HTTPNext) async throws -> HTTPResponse

/// Maps method + path patterns to handlers. Build it before starting the server; the server keeps an
/// immutable copy.
///
/// Patterns are `/`-separated segments; `:name` captures one segment into `pathParameters`. A literal
/// segment takes precedence over a parameter at the same position. An unknown path answers 404 and a
/// known path with another method answers 405 with `Allow`. HEAD is answered by the GET route.
///
/// Middleware run in registration order (first added is outermost) around every request, including
/// those that end in 404/405; `request.route` is already set when they run.
public struct Router: Sendable {
    private var trie = RouteTrie()
    private var middlewares: [HTTPMiddleware] = []

    /// An empty router.
    public init() {}

    /// Registers `handler` for `method` and `pattern` (e.g. `/matches/:matchId/follow`).
    /// - Precondition: the pattern starts with `/`, parameter names are non-empty, and no route with the
    ///   same method and shape exists.
    /// With `immediate`, the server first asks it on its own thread (see `HTTPImmediateHandler`) and runs `handler`
    /// only when it returns nil.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, immediate: HTTPImmediateHandler? = nil, _ handler: @escaping HTTPHandler
    ) {
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        let segments = RouteTrie.segments(pattern)
        var parameters: [(index: Int, name: String)] = []
        for (index, segment) in segments.enumerated() where segment.hasPrefix(":") {
            let name = String(segment.dropFirst())
            precondition(!name.isEmpty, "empty parameter name in route \(pattern)")
            precondition(!parameters.contains { $0.name == name }, "repeated parameter \(name) in \(pattern)")
            parameters.append((index, name))
        }
        let route = Route(method: method, pattern: pattern, parameters: parameters, handler: handler, immediate: immediate)
        trie.insert(route)
    }

    /// Registers a GET route.
    public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) { add(.get, pattern, handler) }
    /// Registers a POST route.
    public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) { add(.post, pattern, handler) }
    /// Registers a PUT route.
    public mutating func put(_ pattern: String, _ handler: @escaping HTTPHandler) { add(.put, pattern, handler) }
    /// Registers a PATCH route.
    public mutating func patch(_ pattern: String, _ handler: @escaping HTTPHandler) { add(.patch, pattern, handler) }
    /// Registers a DELETE route.
    public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) {
        add(.delete, pattern, handler)
    }

    /// Appends a middleware; the first one added is the outermost.
    public mutating func middleware(_ middleware: @escaping HTTPMiddleware) {
        middlewares.append(middleware)
    }

    /// Looks `request` up once: its route and path parameters are set, and the answer comes from
    /// `respondImmediately(to:)` or `respond(to:logger:)` without a second look-up.
    public func route(_ request: HTTPRequest) -> RoutedRequest {
        var request = request
        let match = trie.match(request.method, path: request.path)
        if case .found(let route, let parameters) = match {
            request.route = route.pattern
            request.pathParameters = parameters
        }
        return RoutedRequest(request: request, match: match)
    }

    /// The route's immediate answer (see `HTTPImmediateHandler`), or nil when the request needs its async handler:
    /// the route has no immediate handler, it returned nil, or middleware must wrap the request.
    public func respondImmediately(to routed: RoutedRequest) -> HTTPResponse? {
        guard middlewares.isEmpty, case .found(let route, _) = routed.match, let immediate = route.immediate else { return nil }
        do {
            return try immediate(routed.request)
        } catch {
            return error.response
        }
    }

    /// Routes `request` through the middleware and its handler and always returns an answer: thrown
    /// `HTTPError`s become their JSON answer, other errors a 500 (logged to `logger` without the body).
    public func respond(to request: HTTPRequest, logger: Logger? = nil) async -> HTTPResponse {
        await respond(to: route(request), logger: logger)
    }

    /// `respond(to:logger:)` for a request already looked up.
    public func respond(to routed: RoutedRequest, logger: Logger? = nil) async -> HTTPResponse {
        let request = routed.request
        let endpoint: HTTPHandler
        switch routed.match {
        case .found(let route, _):
            endpoint = route.handler
        case .methodNotAllowed(let allowed):
            let error = HTTPError.methodNotAllowed(request.method, path: request.path, allowed: allowed)
            endpoint = { _ in throw error }
        case .notFound:
            let error = HTTPError.notFound("no route for \(request.path)")
            endpoint = { _ in throw error }
        }
        var next: HTTPNext = Router.rendering(endpoint, logger: logger)
        for middleware in middlewares.reversed() {
            let inner = next
            next = Router.rendering({ request in try await middleware(request, inner) }, logger: logger)
        }
        return await next(request)
    }

    /// Turns a throwing handler into one that renders its errors.
    private static func rendering(_ handler: @escaping HTTPHandler, logger: Logger?) -> HTTPNext {
        { request in
            do {
                return try await handler(request)
            } catch let error as HTTPError {
                return error.response
            } catch {
                logger?.error(
                    "handler failed",
                    [
                        "method": request.method.rawValue, "path": request.path,
                        "route": request.route ?? "", "error": String(describing: error),
                    ])
                return HTTPError.internalError.response
            }
        }
    }
}

/// A request looked up in a `Router` (route and path parameters set), ready to be answered.
public struct RoutedRequest: Sendable {
    /// The request, with `route` and `pathParameters` filled when a route matched.
    public let request: HTTPRequest
    let match: RouteMatch
}
