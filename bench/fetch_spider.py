"""fetch_spider.py - the minimal Scrapy spider of bench/fetch_compare.sh: follow every link.

  http_proxy=http://127.0.0.1:PORT scrapy runspider bench/fetch_spider.py \
      -a homepages=FILE -a stats=STATS.json

Starts at every URL of FILE (one a line), follows every a/@href, area/@href,
frame/@src and iframe/@src of every text response, through the proxy in http_proxy
(Scrapy's HttpProxyMiddleware reads it). robots.txt is obeyed; 64 requests at once, one
per host, no delay, no depth limit. It keeps no items: the Scrapy stats (written to
STATS.json at the end) are its own count of what it fetched.
"""
import json

import scrapy
from scrapy.http import TextResponse

LINKS = '//a/@href | //area/@href | //frame/@src | //iframe/@src'


class FollowAll(scrapy.Spider):
    name = 'followall'
    custom_settings = {
        'ROBOTSTXT_OBEY': True,
        'CONCURRENT_REQUESTS': 64,
        'CONCURRENT_REQUESTS_PER_DOMAIN': 1,
        'DOWNLOAD_DELAY': 0,
        'DEPTH_LIMIT': 0,
        'LOG_LEVEL': 'INFO',
        # fetch_bench and wget do not retry a 502 (dead host) or 5xx either; Scrapy's
        # default of two retries would only add requests for pages that do not exist.
        'RETRY_ENABLED': False,
        'TELNETCONSOLE_ENABLED': False,
        'USER_AGENT': 'fetch-compare-scrapy',
    }

    def __init__(self, homepages, stats=None, **kw):
        super().__init__(**kw)
        self.homepages, self.stats_path = homepages, stats

    def start_requests(self):
        with open(self.homepages) as f:
            for line in f:
                if line.strip():
                    yield scrapy.Request(line.strip(), callback=self.parse)

    def parse(self, response):
        if not isinstance(response, TextResponse):  # PDFs, images: nothing to follow
            return
        ctype = response.headers.get('Content-Type', b'').lower()
        if b'html' not in ctype:
            return
        self.crawler.stats.inc_value('bench/html_pages')
        self.crawler.stats.inc_value('bench/html_bytes', len(response.body))
        for href in response.xpath(LINKS).getall():
            try:
                url = response.urljoin(href.strip())
            except ValueError:
                continue
            if url.startswith(('http://', 'https://')):
                yield scrapy.Request(url, callback=self.parse)

    def closed(self, reason):
        if self.stats_path:
            with open(self.stats_path, 'w') as f:
                json.dump(self.crawler.stats.get_stats(), f, default=str, indent=1)
