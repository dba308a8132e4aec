/// Runs `body` with `resource`, then stops the resource: also when `body` throws, so that a failing test leaves
/// no server, session or emulator running (AsyncHTTPClient stops the process over a client never shut down).
public func using<Resource, Value>(
    _ resource: Resource, stop: (Resource) async -> Void, _ body: (Resource) async throws -> Value
) async throws -> Value {
    let value: Value
    do {
        value = try await body(resource)
    } catch {
        await stop(resource)
        throw error
    }
    await stop(resource)
    return value
}
