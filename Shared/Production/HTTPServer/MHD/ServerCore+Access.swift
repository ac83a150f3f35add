import CMicroHTTPD

extension ServerCore {
    /// The access handler: accumulates the upload, then suspends the connection and runs the router in a
    /// task; when libmicrohttpd calls back after the resume, queues the stored answer.
    ///
    /// Runs on a libmicrohttpd thread; never blocks.
    func access(
        _ state: RequestState, connection: OpaquePointer, method: String,
        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        let limit = configuration.maxBodyBytes
        if state.begin(method: method) {
            inFlight.update { $0 += 1 }
            if let length = MHDConnection.header(connection, "Content-Length"), let bytes = Int(length),
                bytes > limit
            {
                return rejectTooLarge(state, connection, method: method)
            }
            return .YES
        }
        if uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0
            if case .queued = state.phase { return .YES }  // answered early: discard the rest
            let received = state.append(UnsafeRawBufferPointer(start: upload, count: size), limit: limit)
            // libmicrohttpd cannot queue an answer in the middle of an upload: a body that grew past the
            // limit without announcing its length (chunked) is discarded up to `discardLimit` and answered
            // 413 once it ends; a longer one gets the connection closed.
            if received > discardLimit {
                logger.warning(
                    "request body far over the limit; closing connection",
                    ["path": HTTPRequest.splitTarget(state.target).path])
                return .NO
            }
            return .YES
        }
        if state.isTooLarge, case .receiving = state.phase {
            return rejectTooLarge(state, connection, method: method)
        }
        switch state.phase {
        case .receiving:
            return dispatch(state, connection: connection, method: method)
        case .responded(let response):
            return answerNow(state, connection, response, close: stopping.load(ordering: .relaxed))
        case .running, .queued:
            return .YES
        }
    }

    /// Bytes of an over-limit body read (and dropped) before the connection is closed instead of answered.
    private var discardLimit: Int { max(64 * 1024, 4 * configuration.maxBodyBytes) }

    /// Builds the request, suspends the connection and starts the handler task.
    private func dispatch(_ state: RequestState, connection: OpaquePointer, method: String) -> MHD_Result {
        var request = HTTPRequest(method: HTTPMethod(rawValue: method), path: state.target)
        request.headers = MHDConnection.headers(connection)
        request.body = state.takeBody()
        let route = router.routePattern(for: request.method, path: request.path)
        guard suspend(state, connection: connection, route: route) else {
            return answerNow(state, connection, HTTPError.unavailable("server is shutting down").response, close: true)
        }
        let router = self.router
        let logger = self.logger
        Task.detached { [self] in
            let response = await router.respond(to: request, logger: logger)
            self.complete(state, with: response)
        }
        return .YES
    }

    /// Queues `response` and records its status (and `route`, when known only now).
    private func answerNow(
        _ state: RequestState, _ connection: OpaquePointer, _ response: HTTPResponse, close: Bool,
        route: String? = nil
    ) -> MHD_Result {
        let result = MHDConnection.queue(connection, response, close: close)
        state.markQueued(status: response.status, route: route)
        return result
    }

    /// Answers 413 and closes the connection (the rest of the body is not read).
    private func rejectTooLarge(_ state: RequestState, _ connection: OpaquePointer, method: String) -> MHD_Result {
        let path = HTTPRequest.splitTarget(state.target).path
        let route = router.routePattern(for: HTTPMethod(rawValue: method), path: path)
        let response = HTTPError.payloadTooLarge(limit: configuration.maxBodyBytes).response
        return answerNow(state, connection, response, close: true, route: route)
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`: records metrics and balances the in-flight count.
    func completed(_ state: RequestState, termination: UInt32) {
        let terminatedNormally = termination == 0
        let summary = state.summary
        guard summary.started else { return }
        inFlight.update { $0 -= 1 }
        let duration = ContinuousClock.now - state.startedAt
        if let status = summary.status {
            metrics.record(method: summary.method, route: summary.route, status: status, duration: duration)
        }
        if !terminatedNormally || summary.status == nil {
            logger.debug(
                "connection ended before the answer was sent",
                [
                    "method": summary.method, "path": HTTPRequest.splitTarget(state.target).path,
                    "status": summary.status.map(String.init) ?? "none", "termination": String(termination),
                ])
        }
    }
}
