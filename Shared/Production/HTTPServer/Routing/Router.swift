import Runtime

/// Answers one request. Throw `HTTPError` for client errors; any other error becomes a 500.
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse

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
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        let segments = RouteTrie.segments(pattern)
        var parameters: [(index: Int, name: String)] = []
        for (index, segment) in segments.enumerated() where segment.hasPrefix(":") {
            let name = String(segment.dropFirst())
            precondition(!name.isEmpty, "empty parameter name in route \(pattern)")
            precondition(!parameters.contains { $0.name == name }, "repeated parameter \(name) in \(pattern)")
            parameters.append((index, name))
        }
        let route = Route(method: method, pattern: pattern, parameters: parameters, handler: handler)
        trie.insert(route, segments: segments[...])
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

    /// The route pattern that `method` and `path` resolve to, if any (used for metric labels).
    public func routePattern(for method: HTTPMethod, path: String) -> String? {
        if case .found(let route, _) = trie.match(method, path: path) { route.pattern } else { nil }
    }

    /// Routes `request` through the middleware and its handler and always returns an answer: thrown
    /// `HTTPError`s become their JSON answer, other errors a 500 (logged to `logger` without the body).
    public func respond(to request: HTTPRequest, logger: Logger? = nil) async -> HTTPResponse {
        var request = request
        let endpoint: HTTPHandler
        switch trie.match(request.method, path: request.path) {
        case .found(let route, let parameters):
            request.route = route.pattern
            request.pathParameters = parameters
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
