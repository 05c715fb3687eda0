"""The crawler side of crawlab: the web to crawl, fetching, parsing, crawling."""
