/* bench_http_floor.c - the floor under the agent's /metrics latency: libmicrohttpd with the agent's
 * flags (one thread, epoll, turbo) answering every request with the same SIZE bytes and the agent's
 * gzip headers, doing nothing else. scripts/bench_agent.sh measures it as it measures the agent, so
 * what the host, the kernel's loopback TCP and the load generator cost is seen apart from the agent.
 * Usage: bench_http_floor SIZE PORT_FILE   (listens on 127.0.0.1, any free port, written to PORT_FILE) */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_len;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *data_len, void **state)
{
    (void)cls, (void)url, (void)method, (void)version, (void)data, (void)data_len;
    static int seen;
    if (*state != &seen) { /* headers first; answer on the second call, as the agent does */
        *state = &seen;
        return MHD_YES;
    }
    /* A copy per response, as the agent's gzip page is one buffer per scrape. */
    char *copy = malloc(body_len);
    if (!copy)
        return MHD_NO;
    memcpy(copy, body, body_len);
    struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(body_len, copy, free);
    if (!r) {
        free(copy);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: bench_http_floor SIZE PORT_FILE\n");
        return 2;
    }
    body_len = (size_t)atol(argv[1]);
    body = malloc(body_len);
    if (!body)
        return 1;
    for (size_t i = 0; i < body_len; i++)
        body[i] = (char)('a' + i % 26);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO, 0, NULL, NULL, answer, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, 1, MHD_OPTION_CONNECTION_LIMIT, 1000, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    const union MHD_DaemonInfo *info = d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (!info) {
        fprintf(stderr, "bench_http_floor: cannot listen\n");
        return 1;
    }
    FILE *f = fopen(argv[2], "w");
    if (!f)
        return 1;
    fprintf(f, "%u\n", (unsigned)info->port);
    fclose(f);
    pause(); /* until killed */
    return 0;
}
