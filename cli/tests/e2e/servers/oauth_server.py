"""A hosted MCP server as people deploy them: a streamable-HTTP FastMCP server on
127.0.0.1:$PORT that accepts only OAuth bearer tokens, and its authorization server on
127.0.0.1:$AS_PORT (another origin), both built from the official Python SDK's own auth support
(`mcp.server.auth`), so the proxy meets protocol code nobody here wrote:

- the authorization server publishes RFC 8414 metadata, registers clients dynamically (RFC 7591),
  runs the authorization code grant with PKCE (the SDK checks S256 at the token endpoint) and
  the refresh token grant, and binds each token to the `resource` the client asked for (RFC 8707);
  it approves every authorization at once, as a test has no person to click;
- the MCP server publishes RFC 9728 protected-resource metadata, answers 401 with
  `WWW-Authenticate: Bearer ... resource_metadata="..."` without a valid token, refuses a token
  issued for another resource (`validate_token_resource`) or without the `tickets:read` scope.

`/testing/*` on the authorization server is for the tests only: what it counted (registrations,
authorizations, grants, the MCP server's 401s, every token and client secret issued), two ways
of making the tokens a client holds stop working, as an expiry or an administrator's
revocation would, and the lifetime of the tokens it issues.

PRE_CLIENT_ID / PRE_CLIENT_SECRET (optional) add a pre-registered client; its redirect URI is
REDIRECT_URI, the loopback address the client will listen on."""

import os
import secrets
import time

import anyio
import uvicorn
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    ProviderTokenVerifier,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "tickets:read"
STATUSES = ["open", "pending", "closed"]
ASSIGNEES = ["Zoë Ødegård", "Jürgen Weiß", "Ana \"Nana\" Pérez", "李小龙", "O'Brien"]


def tickets(count: int) -> list[dict]:
    """The large result: `count` support tickets, the same for the same count (the tests compare
    the offload file with it)."""
    return [
        {"id": f"TCK-{i:05d}", "status": STATUSES[i % 3], "priority": i % 4,
         "assignee": ASSIGNEES[i % len(ASSIGNEES)],
         "title": f"Ticket {i}: the export of report #{i % 97} fails",
         "tags": ["billing"] if i % 5 == 0 else ["export", f"team-{i % 7}"]}
        for i in range(count)
    ]


class ApprovingProvider:
    """An in-memory OAuthAuthorizationServerProvider (the SDK's protocol) that approves every
    authorization at once; the SDK's handlers do the checks (PKCE, redirect URIs, client
    secrets, scopes against the registration)."""

    def __init__(self, access_ttl: int):
        self.access_ttl = access_ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.issued: list[str] = []  # every access and refresh token ever issued
        self.counts = {"registrations": 0, "authorizations": 0, "code_grants": 0, "refresh_grants": 0,
                       "refused": 0}  # the MCP server's 401 answers

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.counts["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.counts["authorizations"] += 1
        code = AuthorizationCode(
            code=secrets.token_urlsafe(32),
            # A request without a scope gets the scope this server needs, as most servers do.
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.counts["code_grants"] += 1
        del self.codes[authorization_code.code]  # a code is good once
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.counts["refresh_grants"] += 1
        # Rotation: the old refresh token is spent, as OAuth 2.1 asks of public clients.
        del self.refresh[refresh_token.token]
        return self._issue(client.client_id, scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + self.access_ttl, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        self.issued += [access, refresh]
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=self.access_ttl,
                          scope=" ".join(scopes), refresh_token=refresh)

    # The tests' side door.

    async def stats(self, request: Request) -> JSONResponse:
        client_secrets = [client.client_secret for client in self.clients.values() if client.client_secret]
        return JSONResponse({**self.counts, "secrets": self.issued + client_secrets})

    async def expire(self, request: Request) -> JSONResponse:
        """Every access token expires now (the client still believes it good); refresh tokens
        stay."""
        for token in self.access.values():
            token.expires_at = int(time.time()) - 1
        return JSONResponse({"expired": len(self.access)})

    async def set_ttl(self, request: Request) -> JSONResponse:
        """The lifetime of the access tokens issued from now on, in seconds."""
        self.access_ttl = int((await request.json())["seconds"])
        return JSONResponse({"access_ttl": self.access_ttl})

    def counting_refusals(self, app):
        """The MCP server's app, its 401 answers counted (a client that refreshes a token before
        it expires gets none)."""
        async def counted(scope, receive, send):
            async def send_counted(message):
                if message["type"] == "http.response.start" and message["status"] == 401:
                    self.counts["refused"] += 1
                await send(message)
            await app(scope, receive, send_counted)
        return counted

    async def revoke_all(self, request: Request) -> JSONResponse:
        """Every access and refresh token is revoked: only a new authorization helps."""
        revoked = len(self.access) + len(self.refresh)
        self.access.clear()
        self.refresh.clear()
        return JSONResponse({"revoked": revoked})


def main():
    port, as_port = int(os.environ["PORT"]), int(os.environ["AS_PORT"])
    issuer = AnyHttpUrl(f"http://127.0.0.1:{as_port}")
    resource = AnyHttpUrl(f"http://127.0.0.1:{port}/mcp")
    provider = ApprovingProvider(access_ttl=int(os.environ.get("ACCESS_TTL", "3600")))
    if os.environ.get("PRE_CLIENT_ID"):
        # Validated from plain strings, as a registration is (the SDK compares redirect URIs
        # as the URL type it parsed them to).
        provider.clients[os.environ["PRE_CLIENT_ID"]] = OAuthClientInformationFull.model_validate({
            "client_id": os.environ["PRE_CLIENT_ID"], "client_secret": os.environ["PRE_CLIENT_SECRET"],
            "redirect_uris": [os.environ["REDIRECT_URI"]], "scope": SCOPE,
            "token_endpoint_auth_method": "client_secret_basic",
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})

    # The authorization server: the SDK's routes (metadata, /authorize, /token, /register,
    # /revoke) over the provider.
    registration = ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE])
    auth_app = Starlette(routes=[
        *create_auth_routes(provider, issuer, client_registration_options=registration,
                            revocation_options=RevocationOptions(enabled=True)),
        Route("/testing/stats", provider.stats, methods=["GET"]),
        Route("/testing/expire", provider.expire, methods=["POST"]),
        Route("/testing/revoke-all", provider.revoke_all, methods=["POST"]),
        Route("/testing/ttl", provider.set_ttl, methods=["POST"]),
    ])

    # The resource server: FastMCP with a token verifier (the provider's own tokens, looked up
    # in memory as an introspection endpoint would), the metadata route and the 401s.
    mcp = FastMCP(
        "ticket-desk",
        token_verifier=ProviderTokenVerifier(provider),
        auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[SCOPE],
                          validate_token_resource=True),
        log_level="WARNING",
    )

    @mcp.tool()
    def list_tickets(count: int = 3000) -> list[dict]:
        """Support tickets, `count` of them."""
        return tickets(count)

    @mcp.tool()
    def get_ticket(ticket_id: str) -> dict:
        """One ticket by id (TCK-00042)."""
        return tickets(int(ticket_id.removeprefix("TCK-")) + 1)[-1]

    async def serve():
        async with anyio.create_task_group() as group:
            for app, app_port in ((auth_app, as_port), (provider.counting_refusals(mcp.streamable_http_app()), port)):
                config = uvicorn.Config(app, host="127.0.0.1", port=app_port, log_level="warning")
                group.start_soon(uvicorn.Server(config).serve)

    anyio.run(serve)


if __name__ == "__main__":
    main()
