"""A small OAuth 2.0 authorization server for flowrun's tests, built on Authlib (a real library, not flowrun's code):
the client credentials grant at /token, clients that authenticate only with a JWT (RFC 7523): `client_secret_jwt`
(HS256 with the client's secret) or `private_key_jwt` (RS256 or ES256 with the client's key), OpenID-style metadata
at /.well-known/openid-configuration, and /userinfo, which takes the tokens it issued.

    python authlib_token_server.py [--methods client_secret_jwt,private_key_jwt] [--metadata-methods LIST]
        [--secret-client ID=SECRET]... [--key-client ID=PUBLIC_KEY.pem]...

It listens on a free port of 127.0.0.1 and prints exactly one line on standard output once it does:
`authlib listening on http://127.0.0.1:PORT`. Each token request it authenticates is told on standard error as
`token: client ID by METHOD (ALG)`; each it refuses as `refused: ERROR DESCRIPTION`. It stops on SIGTERM.
Installed by .ci/authlib.sh (Authlib, Flask).
"""

import argparse
import json
import signal
import sys
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc6750 import BearerTokenValidator
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion
from flask import Flask, jsonify
from joserfc.jwk import OctKey, import_key
from werkzeug.serving import make_server


class Client(ClientMixin):
    def __init__(self, client_id, method, secret=None, public_key=None):
        self.client_id = client_id
        self.method = method
        self.secret = secret
        self.public_key = public_key

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        # Only JWTs: a secret sent as such (Basic, form) is refused.
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.method

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type == "client_credentials"


def jwt_method(name, audiences, seen):
    """Authlib's RFC 7523 client assertion for one method: it takes only the clients registered for it, checks the
    signature with their secret (an HMAC key) or public key, the claims, and that no `jti` comes twice."""

    class Method(JWTBearerClientAssertion):
        CLIENT_AUTH_METHOD = name

        def __call__(self, query_client, request):
            assertion = request.form.get("client_assertion")
            if not assertion:
                return None
            headers, claims = self.extract_assertion(assertion)
            client = query_client(claims.get("sub")) if isinstance(claims.get("sub"), str) else None
            if client is None or client.method != name:
                return None
            found = super().__call__(query_client, request)
            if found is not None:
                print(f"token: client {found.client_id} by {name} ({headers.get('alg')})", file=sys.stderr, flush=True)
            return found

        def get_audiences(self):
            return audiences

        def validate_jti(self, claims, jti):
            key = (claims["sub"], jti)
            if key in seen:
                return False
            seen.add(key)
            return True

        def resolve_client_public_key(self, client):
            if client.method == "client_secret_jwt":
                return OctKey.import_key(client.secret)
            return import_key(client.public_key)

    return Method()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--methods", default="client_secret_jwt,private_key_jwt")
    parser.add_argument("--metadata-methods", default=None)
    parser.add_argument("--secret-client", action="append", default=[])
    parser.add_argument("--key-client", action="append", default=[])
    arguments = parser.parse_args()
    methods = [m for m in arguments.methods.split(",") if m]
    published = methods if arguments.metadata_methods is None else [
        m for m in arguments.metadata_methods.split(",") if m
    ]

    clients = {}
    for entry in arguments.secret_client:
        client_id, secret = entry.split("=", 1)
        clients[client_id] = Client(client_id, "client_secret_jwt", secret=secret)
    for entry in arguments.key_client:
        client_id, path = entry.split("=", 1)
        with open(path, "rb") as key_file:
            clients[client_id] = Client(client_id, "private_key_jwt", public_key=key_file.read())

    app = Flask("authlib-token-server")
    tokens = {}
    server = make_server("127.0.0.1", 0, app, threaded=True)
    issuer = f"http://127.0.0.1:{server.server_port}"
    token_url = issuer + "/token"

    def save_token(token, request):
        tokens[token["access_token"]] = (request.client.client_id, time.time() + token.get("expires_in", 3600))

    authorization = AuthorizationServer(app, query_client=clients.get, save_token=save_token)
    seen = set()
    for name in methods:
        authorization.register_client_auth_method(name, jwt_method(name, [token_url, issuer], seen))

    class ClientCredentials(grants.ClientCredentialsGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = methods

    authorization.register_grant(ClientCredentials)

    class Token:
        def __init__(self, client_id, expires_at):
            self.client_id = client_id
            self.expires_at = expires_at

        def check_client(self, client):
            return client.client_id == self.client_id

        def get_scope(self):
            return ""

        def get_expires_in(self):
            return int(self.expires_at - time.time())

        def is_expired(self):
            return time.time() >= self.expires_at

        def is_revoked(self):
            return False

    class Validator(BearerTokenValidator):
        def authenticate_token(self, token_string):
            found = tokens.get(token_string)
            return Token(*found) if found else None

    protect = ResourceProtector()
    protect.register_token_validator(Validator())

    @app.get("/.well-known/openid-configuration")
    def metadata():
        return jsonify(
            issuer=issuer,
            token_endpoint=token_url,
            token_endpoint_auth_methods_supported=published,
            token_endpoint_auth_signing_alg_values_supported=["HS256", "RS256", "ES256"],
            grant_types_supported=["client_credentials"],
        )

    @app.post("/token")
    def token():
        response = authorization.create_token_response()
        if response.status_code != 200:
            body = json.loads(response.get_data(as_text=True) or "{}")
            print(f"refused: {body.get('error')} {body.get('error_description', '')}", file=sys.stderr, flush=True)
        return response

    @app.get("/userinfo")
    @protect()
    def userinfo():
        from authlib.integrations.flask_oauth2 import current_token

        return jsonify(sub=current_token.client_id)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"authlib listening on {issuer}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
