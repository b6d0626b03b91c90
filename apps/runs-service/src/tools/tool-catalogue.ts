import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ToolCatalogue } from '@aas/contracts';
import { RunsEnv } from '../config/runs.env';
import { fetchRuntimeCatalogue } from './runtime-catalogue';

const NO_TOOLS: ToolCatalogue = { tools: [] };

/**
 * The tools of the configured runtime (GET /v1/tools, and the icons of a run's tool_icons), asked of it
 * at most once per TOOL_CATALOGUE_CACHE_MS per replica (tools change when the runtime is reconfigured, rarely), however many callers ask at once. The built-in
 * runtime calls no tools: its catalogue is empty.
 */
@Injectable()
export class ToolCatalogueSource {
  private readonly logger = new Logger(ToolCatalogueSource.name);
  private cached?: { until: number; catalogue: Promise<ToolCatalogue> };

  constructor(private readonly config: ConfigService<RunsEnv, true>) {}

  /** The catalogue, or a 503 ServiceUnavailableError when the runtime cannot be asked. */
  list(): Promise<ToolCatalogue> {
    const url = this.config.get('AGENT_RUNTIME_URL', { infer: true });
    if (!url) return Promise.resolve(NO_TOOLS);
    if (this.cached && this.cached.until > Date.now()) return this.cached.catalogue;
    const catalogue = fetchRuntimeCatalogue(url, this.config.get('AGENT_RUNTIME_SECRET', { infer: true }));
    this.cached = { until: Date.now() + this.config.get('TOOL_CATALOGUE_CACHE_MS', { infer: true }), catalogue };
    // A failure is not kept: the next caller asks again.
    catalogue.catch(() => {
      if (this.cached?.catalogue === catalogue) this.cached = undefined;
    });
    return catalogue;
  }

  /** The catalogue's icon of each tool, for a run's tool_icons; no icons when it cannot be had (the run goes on). */
  async icons(): Promise<(tool: string) => string | null> {
    try {
      const { tools } = await this.list();
      const icons = new Map(tools.map((t) => [t.name, t.icon]));
      return (tool) => icons.get(tool) ?? null;
    } catch (error) {
      this.logger.warn(`no tool icons for this run: ${(error as Error).message}`);
      return () => null;
    }
  }
}
